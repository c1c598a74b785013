"""Models, one module each (:class:`simulate.contracts.Model`): ``gaussian`` (the Gaussian mean model, any d and
Sigma: the 1-D toy of Vollmer et al., Baker et al.'s Sec. 3.4 target), ``linear_regression``, ``logistic``,
``potentials`` (1-D targets exp(-U)), Baker et al.'s other Sec. 3 toys (``bivariate_t``, ``gaussian_mixture``,
``warped_gaussian``), ``lda`` (SGRLD's topic model), ``datasets`` (real data shipped in packages); ``base`` holds the
base class ``ModelBase``, ``log_density`` the base of the models given by their log densities (``LogDensityModel``)."""

from .base import ModelBase
from .bivariate_t import BivariateTLocation
from .datasets import breast_cancer_model
from .gaussian import GaussianMeanModel
from .gaussian_mixture import GaussianMixtureLocation
from .lda import LDACorpus, LDAModel, document_strata, synthetic_lda_corpus, topic_error
from .linear_regression import LinearRegressionModel
from .log_density import LogDensityModel
from .logistic import LogisticRegressionModel
from .potentials import PotentialModel, double_well, quartic
from .warped_gaussian import WarpedGaussian

__all__ = [
    "BivariateTLocation", "GaussianMeanModel", "GaussianMixtureLocation", "LDACorpus", "LDAModel",
    "LinearRegressionModel", "LogDensityModel", "LogisticRegressionModel", "ModelBase", "PotentialModel",
    "WarpedGaussian", "breast_cancer_model", "document_strata", "double_well", "quartic", "synthetic_lda_corpus",
    "topic_error",
]
