"""Conformance: another library's SG-MCMC step against the exact law of the algorithm it declares::

    from verify.conformance import Declared, NumpyStep, Case, Schedule, run_cases, linreg_problem

An implementation is a :class:`ChainStep` (M chains advanced together; adapters: :class:`NumpyStep` for a
vectorised numpy step, ``adapters.blackjax``, ``adapters.sgmcmcjax`` (JAX, ``jit(vmap)``), ``adapters.posteriors``
(torch, batched)); it declares a :class:`Declared` algorithm in the workbench convention. :func:`run_cases` runs
many independent chains on the workbench's test models (:func:`toy_problem`, :func:`linreg_problem`), compares
finite-k moments and the stationary law with the exact answer (one Holm family over all checks) and says what a
"holds" rules out: "holds: would have detected a noise-scale error of X%". ``python -m verify.conformance`` runs
blackjax, SGMCMCJax and posteriors (docs/conformance.md).
"""

from .adapters.numpy_step import NumpyStep, numpy_sgld
from .declared import ALGORITHMS, Declared
from .harness import ChainStep, Schedule, case_checks, simulate_case
from .problems import Problem, linreg_problem, toy_problem
from .suite import Case, CaseResult, run_cases

__all__ = ["ALGORITHMS", "Case", "CaseResult", "ChainStep", "Declared", "NumpyStep", "Problem", "Schedule",
           "case_checks", "linreg_problem", "numpy_sgld", "run_cases", "simulate_case", "toy_problem"]
