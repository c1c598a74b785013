"""The exact law of each integrator's update, read from the simulator's integrator object.

An integrator law gives the blocks it adds (SGHMC's momentum), its period (the momentum refresh), and for the update
x' = A x^ + B g + noise: A (n, n) (identity off its blocks), B (n, d) and the noise covariance Qn (n, n), plus the
stages after the update (the refresh). Workbench convention (README):

* Langevin / SGLD:   theta' = theta + (h/2) g + sqrt(h) xi (Welling & Teh 2011; Vollmer et al. eq. 5);
* no noise:          theta' = theta + (h/2) g (SAGA's update as printed in Baker et al. Sec. 4.4);
* mSGLD:             theta' = theta + (h/2) g + sqrt(h) (I - (h/8) Cov g) xi (Vollmer et al. eq. 9 with Cov fhat =
                     Cov g / 4; needs Cov g free of theta);
* SGHMC:             v' = (1 - alpha) v + h g + sqrt(2 alpha h) xi, theta' = theta + v' (Chen et al. 2014 eq. 15,
                     M = I, beta_hat = 0); v <- sqrt(h) xi' after every ``resample_every`` steps; v_0 ~ N(0, h I).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .kernel import Context, Layout
from .stages import Stage, eye, zeros


@dataclass(frozen=True)
class IntegratorLaw:
    blocks: tuple[tuple[str, int], ...]
    period: int
    update: Callable[[Layout, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]  # (lay, Cov g) -> (A, B, Qn)
    post: Callable[[int, Layout], list[Stage]]
    init_noise: Callable[[Layout], np.ndarray]
    needs_grad_cov: bool = False


def _theta_noise(lay: Layout, cov: np.ndarray) -> np.ndarray:
    E = lay.embed("theta")
    return E @ cov @ E.T


def _first_order(ctx: Context, noise: Callable[[Layout, np.ndarray], np.ndarray], needs: bool = False):
    def update(lay: Layout, cov_g: np.ndarray):
        B = lay.embed("theta") * (ctx.h / 2)
        return eye(lay.n, lay.dtype), B, noise(lay, cov_g)

    return IntegratorLaw((), 1, update, lambda p, lay: [], lambda lay: zeros((lay.n, lay.n), lay.dtype), needs)


def langevin(integ, ctx: Context) -> IntegratorLaw:
    return _first_order(ctx, lambda lay, c: _theta_noise(lay, eye(lay.d, lay.dtype) * ctx.h))


def noiseless_langevin(integ, ctx: Context) -> IntegratorLaw:
    return _first_order(ctx, lambda lay, c: zeros((lay.n, lay.n), lay.dtype))


def modified_langevin(integ, ctx: Context) -> IntegratorLaw:
    """Noise matrix G = sqrt(h) (I - (h/c) Cov g), so Qn = h (I - (h/c) Cov g)^2 (Cov g symmetric); c = 8 for
    eq. (54), 2 for eq. (9) as printed (``integ.correction``)."""

    def noise(lay: Layout, cov_g: np.ndarray) -> np.ndarray:
        G = eye(lay.d, lay.dtype) - cov_g * (ctx.h / integ.correction)
        return _theta_noise(lay, G @ G.T * ctx.h)

    return _first_order(ctx, noise, needs=True)


def sghmc(integ, ctx: Context) -> IntegratorLaw:
    h, a = ctx.h, ctx.num(integ.alpha)
    L = integ.resample_every

    def update(lay: Layout, cov_g: np.ndarray):
        th, v = lay.slice("theta"), lay.slice("v")
        A = eye(lay.n, lay.dtype)
        Ev = lay.select("v")
        A[th] = A[th] + Ev * (1 - a)
        A[v] = Ev * (1 - a)
        B = (lay.embed("theta") + lay.embed("v")) * h
        W = lay.embed("theta") + lay.embed("v")
        return A, B, W @ W.T * (2 * a * h)

    def post(phase: int, lay: Layout) -> list[Stage]:
        if L is None or (phase + 1) % L != 0:
            return []
        M = eye(lay.n, lay.dtype)
        M[lay.slice("v")] = 0
        Ev = lay.embed("v")
        return [Stage(M, Ev @ Ev.T * h)]

    def init_noise(lay: Layout) -> np.ndarray:
        Ev = lay.embed("v")
        return Ev @ Ev.T * h

    return IntegratorLaw((("v", ctx.parts.dim),), 1 if L is None else int(L), update, post, init_noise)


__all__ = ["IntegratorLaw", "langevin", "modified_langevin", "noiseless_langevin", "sghmc"]
