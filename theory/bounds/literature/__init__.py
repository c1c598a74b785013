"""Published non-asymptotic bounds for Langevin-type samplers under m-strong log-concavity and M-smoothness, each
as a :class:`Bound` (what it bounds, its assumptions, its constants and where each was read), for the atlas
(:mod:`theory.atlas`) and the claim family ``bounds`` (``python -m verify --paper bounds``).

    dalalyan             Dalalyan (2017) Theorem 2: TV, ULA, warm start
    dalalyan_karagulyan  Dalalyan & Karagulyan (2019) Theorem 1 (W2, ULA, both step branches) and Theorem 4
                         (inaccurate gradients: SGLD, SGLD-CV, SVRG-LD as oracles)
    durmus_moulines      Durmus & Moulines (2019): W2, ULA, constant step
    vempala_wibisono     Vempala & Wibisono (2019) Theorem 1: KL under a log-Sobolev inequality
    durmus_majewski      Durmus, Majewski & Miasojedow (2019): KL of the averaged law
    cheng                Cheng, Chatterji, Bartlett & Jordan (2018) Theorem 1: underdamped Langevin MCMC, W2 of (x, v)
    chatterji            Chatterji et al. (2018) Theorems 4.1 and 4.2: SAGA-LD and SVRG-LD

``PUBLISHED`` lists them in this order. docs/bounds.md holds the provenance table.
"""

from .base import BOUND_SAMPLERS, LAWS, METRICS, STARTS, Bound, Constants, Source
from .chatterji import CHATTERJI_SAGA, CHATTERJI_SVRG
from .cheng import CHENG
from .dalalyan import DALALYAN
from .dalalyan_karagulyan import DK_INACCURATE, DK_W2
from .durmus_majewski import DMM_AVERAGE
from .durmus_moulines import DM_W2
from .vempala_wibisono import VW_KL

PUBLISHED: tuple[Bound, ...] = (DALALYAN, DK_W2, *DK_INACCURATE, DM_W2, VW_KL, DMM_AVERAGE, CHENG, CHATTERJI_SAGA,
                                CHATTERJI_SVRG)

__all__ = ["LAWS", "METRICS", "PUBLISHED", "BOUND_SAMPLERS", "STARTS", "Bound", "Constants", "Source"]
