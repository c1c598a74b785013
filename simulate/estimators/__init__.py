"""Gradient estimators of grad log posterior, one module each (:class:`simulate.contracts.GradientEstimator`):

``minibatch`` (full gradient; uniform minibatch with or without replacement), ``control_variates`` (SGLD-CV's,
Baker et al. 2019; its centre from ``mode``'s SGD mode finder), ``vr`` (Chen et al.'s Algorithm 1 and SVRG),
``saga``, ``stratified`` (Fu & Zhang's eq. 10, on ``strata`` with sample sizes from ``allocation``),
``estimated_cov`` (a minibatch that also estimates its covariance, Vollmer et al. Remark 7), ``additive_noise``
(Gaussian noise added to the exact gradient), ``reuse`` (a minibatch reused for K steps); ``subsample`` draws the
minibatch indices, ``base`` holds the defaults.
"""

from .additive_noise import AdditiveNoise
from .allocation import allocate
from .base import EstimatorBase
from .control_variates import ControlVariate, control_variate
from .estimated_cov import CovEstimate, EstimatedCovMinibatch, estimated_covariance
from .minibatch import FullGradient, Minibatch
from .mode import ModeEstimate, sgd_mode
from .reuse import Reused, ReuseState
from .saga import SAGA, SAGAState
from .strata import Strata, kmeans_strata
from .stratified import Stratified, stratified_estimator
from .subsample import sample_indices
from .vr import SVRG, VRMinibatch, VRState

__all__ = [
    "SAGA", "SVRG", "AdditiveNoise", "ControlVariate", "CovEstimate", "EstimatedCovMinibatch", "EstimatorBase",
    "FullGradient", "Minibatch", "ModeEstimate", "ReuseState", "Reused", "SAGAState", "Strata", "Stratified",
    "VRMinibatch", "VRState",
    "allocate", "control_variate", "estimated_covariance", "kmeans_strata", "sample_indices", "sgd_mode",
    "stratified_estimator",
]
