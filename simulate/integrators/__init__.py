"""Integrators, one module each (:class:`simulate.contracts.Integrator`): ``langevin`` (SGLD's step, mSGLD's,
mSGLD as printed in eq. (9), SAGA's printed map without noise), ``sghmc`` (Chen et al. 2014 eq. 15, with a momentum
state), ``underdamped`` (SGHMC in the explicit-Euler order and BAOAB, as the peer libraries write them), ``ulmc``
(Cheng et al.'s underdamped Langevin MCMC, the exact frozen-gradient flow), ``sgrld`` (Patterson & Teh's
expanded-mean step); ``base`` holds the defaults (an empty state, h < 4/L)."""

from .base import EMPTY, IntegratorBase
from .langevin import Langevin, ModifiedLangevin, NoiselessLangevin, PrintedEq9Langevin
from .sghmc import SGHMC, SGHMCState
from .sgrld import ExpandedMeanLangevin
from .ulmc import UnderdampedLangevinMC
from .underdamped import BAOAB, ExplicitEulerSGHMC

__all__ = ["BAOAB", "EMPTY", "SGHMC", "ExpandedMeanLangevin", "ExplicitEulerSGHMC", "IntegratorBase", "Langevin",
           "ModifiedLangevin", "NoiselessLangevin", "PrintedEq9Langevin", "SGHMCState",
           "UnderdampedLangevinMC"]
