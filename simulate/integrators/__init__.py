"""Integrators, one module each (:class:`simulate.contracts.Integrator`): ``langevin`` (SGLD's step, mSGLD's,
mSGLD as printed in eq. (9), SAGA's printed map without noise), ``sghmc`` (Chen et al. 2014 eq. 15, with a momentum
state), ``sgrld`` (Patterson & Teh's expanded-mean step); ``base`` holds the defaults (an empty state, h < 4/L)."""

from .base import EMPTY, IntegratorBase
from .langevin import Langevin, ModifiedLangevin, NoiselessLangevin, PrintedEq9Langevin
from .sghmc import SGHMC, SGHMCState
from .sgrld import ExpandedMeanLangevin

__all__ = ["EMPTY", "SGHMC", "ExpandedMeanLangevin", "IntegratorBase", "Langevin", "ModifiedLangevin",
           "NoiselessLangevin", "PrintedEq9Langevin", "SGHMCState"]
