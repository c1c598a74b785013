"""The exact law of each integrator's update, read from the simulator's integrator object.

An integrator law gives the blocks it adds (SGHMC's momentum), its period (the momentum refresh), and for the update
x' = A x^ + B g + noise: A (n, n) (identity off its blocks), B (n, d) and the noise covariance Qn (n, n), plus the
stages after the update (the refresh) and, where step 0 differs from the rest (BAOAB), that step's (A, B, Qn).
Workbench convention (README); T is the integrator's ``temperature`` (every injected variance times T):

* Langevin / SGLD:   theta' = theta + (h/2) g + sqrt(h T) xi (Welling & Teh 2011; Vollmer et al. eq. 5);
* no noise:          theta' = theta + (h/2) g (SAGA's update as printed in Baker et al. Sec. 4.4);
* mSGLD:             theta' = theta + (h/2) g + sqrt(h) (I - (h/8) Cov g) xi (Vollmer et al. eq. 9 with Cov fhat =
                     Cov g / 4; needs Cov g free of theta);
* SGHMC:             v' = (1 - alpha) v + h g + sqrt(2 alpha h T) xi, theta' = theta + v' (Chen et al. 2014 eq. 15,
                     M = I, beta_hat = 0); v <- N(0, refresh_var) after every ``resample_every`` steps;
                     v_0 ~ N(0, v0_var) (both default h T);
* explicit-Euler SGHMC: theta' = theta + v, v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h T) xi (the peers' order;
                     :mod:`simulate.integrators.underdamped`), momentum as SGHMC;
* underdamped Langevin MCMC (Cheng et al. 2018, Lemma 11): x' = x + (1 - e)/gamma v + u (h - (1 - e)/gamma)/gamma g
                     + xi_x, v' = e v + u (1 - e)/gamma g + xi_v, e = exp(-gamma h), (xi_x, xi_v) Gaussian with the
                     covariances of :mod:`simulate.integrators.ulmc`; v_0 ~ N(0, v0_var) (default u T);
* BAOAB:             v1 = v + k g, theta' = theta + (1 + c)/2 v1 + eta/2, v' = c v1 + eta, eta ~ N(0, h T (1 - c^2)),
                     c = exp(-alpha), k = h (k = h/2 at step 0): the B A O A of Leimkuhler & Matthews (2013) with the
                     previous step's closing half-kick folded in (:mod:`simulate.integrators.underdamped`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

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
    first: Callable[[Layout], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None  # step 0's (A, B, Qn)


def _theta_noise(lay: Layout, cov: np.ndarray) -> np.ndarray:
    E = lay.embed("theta")
    return E @ cov @ E.T


def _first_order(ctx: Context, noise: Callable[[Layout, np.ndarray], np.ndarray], needs: bool = False):
    def update(lay: Layout, cov_g: np.ndarray):
        B = lay.embed("theta") * (ctx.h / 2)
        return eye(lay.n, lay.dtype), B, noise(lay, cov_g)

    return IntegratorLaw((), 1, update, lambda p, lay: [], lambda lay: zeros((lay.n, lay.n), lay.dtype), needs)


def langevin(integ, ctx: Context) -> IntegratorLaw:
    T = ctx.num(integ.temperature)
    return _first_order(ctx, lambda lay, c: _theta_noise(lay, eye(lay.d, lay.dtype) * (ctx.h * T)))


def noiseless_langevin(integ, ctx: Context) -> IntegratorLaw:
    return _first_order(ctx, lambda lay, c: zeros((lay.n, lay.n), lay.dtype))


def modified_langevin(integ, ctx: Context) -> IntegratorLaw:
    """Noise matrix G = sqrt(h) (I - (h/c) Cov g), so Qn = h (I - (h/c) Cov g)^2 (Cov g symmetric); c = 8 for
    eq. (54), 2 for eq. (9) as printed (``integ.correction``)."""

    def noise(lay: Layout, cov_g: np.ndarray) -> np.ndarray:
        G = eye(lay.d, lay.dtype) - cov_g * (ctx.h / integ.correction)
        return _theta_noise(lay, G @ G.T * ctx.h)

    return _first_order(ctx, noise, needs=True)


def _variance(value, default):
    """A momentum variance: the integrator's absolute value, else its default (h T, possibly symbolic in h)."""
    return default if value is None else value


def _momentum(integ, ctx: Context, update, first=None) -> IntegratorLaw:
    """The law of a momentum integrator: ``update`` (A, B, Qn); v_0 ~ N(0, v0_var I); v redrawn from
    N(0, refresh_var I) after every ``resample_every`` steps (when the integrator has one)."""
    h, T = ctx.h, ctx.num(integ.temperature)
    L = getattr(integ, "resample_every", None)
    v0 = _variance(None if integ.v0_var is None else ctx.num(integ.v0_var), h * T)
    vr = _variance(None if getattr(integ, "refresh_var", None) is None else ctx.num(integ.refresh_var), h * T)

    def post(phase: int, lay: Layout) -> list[Stage]:
        if L is None or (phase + 1) % L != 0:
            return []
        M = eye(lay.n, lay.dtype)
        M[lay.slice("v")] = 0
        Ev = lay.embed("v")
        return [Stage(M, Ev @ Ev.T * vr)]

    def init_noise(lay: Layout) -> np.ndarray:
        Ev = lay.embed("v")
        return Ev @ Ev.T * v0

    return IntegratorLaw((("v", ctx.parts.dim),), 1 if L is None else int(L), update, post, init_noise,
                         first=first)


def sghmc(integ, ctx: Context) -> IntegratorLaw:
    h, a, T = ctx.h, ctx.num(integ.alpha), ctx.num(integ.temperature)

    def update(lay: Layout, cov_g: np.ndarray):
        th, v = lay.slice("theta"), lay.slice("v")
        A = eye(lay.n, lay.dtype)
        Ev = lay.select("v")
        A[th] = A[th] + Ev * (1 - a)
        A[v] = Ev * (1 - a)
        B = (lay.embed("theta") + lay.embed("v")) * h
        W = lay.embed("theta") + lay.embed("v")
        return A, B, W @ W.T * (2 * a * h * T)

    return _momentum(integ, ctx, update)


def explicit_euler_sghmc(integ, ctx: Context) -> IntegratorLaw:
    h, a, T = ctx.h, ctx.num(integ.alpha), ctx.num(integ.temperature)

    def update(lay: Layout, cov_g: np.ndarray):
        th, v = lay.slice("theta"), lay.slice("v")
        A = eye(lay.n, lay.dtype)
        Ev = lay.select("v")
        A[th] = A[th] + Ev
        A[v] = Ev * (1 - a)
        E = lay.embed("v")
        return A, E * h, E @ E.T * (2 * a * h * T)

    return _momentum(integ, ctx, update)


def baoab(integ, ctx: Context) -> IntegratorLaw:
    h, T = ctx.h, ctx.num(integ.temperature)
    c = ctx.num(integ.damping)
    half = ctx.num(0.5)

    def update_with(kick):
        def update(lay: Layout, cov_g: np.ndarray | None = None):
            th, v = lay.slice("theta"), lay.slice("v")
            A = eye(lay.n, lay.dtype)
            Ev = lay.select("v")
            A[th] = A[th] + Ev * ((1 + c) * half)
            A[v] = Ev * c
            B = (lay.embed("theta") * ((1 + c) * half) + lay.embed("v") * c) * kick
            W = lay.embed("theta") * half + lay.embed("v")
            return A, B, W @ W.T * (h * T * (1 - c * c))

        return update

    first = update_with(h * half)
    return _momentum(integ, ctx, update_with(h), first=lambda lay: first(lay))


def _exp(x):
    """exp in the number type of x (float, complex, mpmath or sympy)."""
    if isinstance(x, sp.Basic):
        return sp.exp(x)
    if isinstance(x, (mpmath.mpf, mpmath.mpc)):
        return mpmath.exp(x)
    return np.exp(x)


def ulmc(integ, ctx: Context) -> IntegratorLaw:
    h, T = ctx.h, ctx.num(integ.temperature)
    g, u = ctx.num(integ.gamma), ctx.num(integ.u)
    e = _exp(-g * h)
    one, one2 = 1 - e, 1 - e * e
    var_v = u * T * one2
    var_x = (u * T / g) * (2 * h - 4 * one / g + one2 / g)
    cov_xv = (u * T / g) * one * one
    v0 = u * T if integ.v0_var is None else ctx.num(integ.v0_var)

    def update(lay: Layout, cov_g: np.ndarray):
        th, v = lay.slice("theta"), lay.slice("v")
        A = eye(lay.n, lay.dtype)
        Ev = lay.select("v")
        A[th] = A[th] + Ev * (one / g)
        A[v] = Ev * e
        B = lay.embed("theta") * (u * (h - one / g) / g) + lay.embed("v") * (u * one / g)
        Et, Ev_ = lay.embed("theta"), lay.embed("v")
        Q = (Et @ Et.T) * var_x + (Ev_ @ Ev_.T) * var_v + (Et @ Ev_.T + Ev_ @ Et.T) * cov_xv
        return A, B, Q

    def init_noise(lay: Layout) -> np.ndarray:
        Ev_ = lay.embed("v")
        return Ev_ @ Ev_.T * v0

    return IntegratorLaw((("v", ctx.parts.dim),), 1, update, lambda p, lay: [], init_noise)


__all__ = ["IntegratorLaw", "baoab", "explicit_euler_sghmc", "langevin", "modified_langevin", "noiseless_langevin",
           "sghmc", "ulmc"]
