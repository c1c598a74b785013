"""Models, one module each (:class:`simulate.contracts.Model`): ``gaussian`` (the Gaussian mean model, any d; the
1-D toy of Vollmer et al.), ``linear_regression``, ``logistic``, ``potentials`` (1-D targets exp(-U)),
``toy_targets`` (Baker et al. Sec. 3), ``lda`` (SGRLD's topic model), ``datasets`` (real data shipped in packages);
``base`` holds the base class."""

from .base import Model
from .datasets import breast_cancer_model
from .gaussian import GaussianMeanModel
from .lda import LDACorpus, LDAModel, document_strata, synthetic_lda_corpus, topic_error
from .linear_regression import LinearRegressionModel
from .logistic import LogisticRegressionModel
from .potentials import PotentialModel, double_well, quartic
from .toy_targets import BivariateTLocation, GaussianLocation, GaussianMixtureLocation, WarpedGaussian

__all__ = [
    "BivariateTLocation", "GaussianLocation", "GaussianMeanModel", "GaussianMixtureLocation",
    "LDACorpus", "LDAModel", "LinearRegressionModel", "LogisticRegressionModel", "Model", "PotentialModel",
    "WarpedGaussian", "breast_cancer_model", "document_strata", "double_well", "quartic", "synthetic_lda_corpus",
    "topic_error",
]
