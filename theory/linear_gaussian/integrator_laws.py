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
                     previous step's closing half-kick folded in (:mod:`simulate.integrators.underdamped`);
* fixed preconditioner: theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi, G constant (new; pSGLD's form, Li et al. 2016
                     Alg. 1, with G frozen).

Each law registers itself with :func:`theory.law_for` (the door a user's module uses too), with the examples the
shared checks hold it to.
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath
import numpy as np
import sympy as sp

from simulate.estimators.saga import SAGA
from simulate.integrators.langevin import Langevin, ModifiedLangevin, NoiselessLangevin, PrintedEq9Langevin
from simulate.integrators.preconditioned import PreconditionedLangevin
from simulate.integrators.psgld import AdaptivePreconditionedLangevin
from simulate.integrators.sghmc import SGHMC
from simulate.integrators.ulmc import UnderdampedLangevinMC
from simulate.integrators.underdamped import BAOAB, ExplicitEulerSGHMC
from simulate.validation import ParameterError

from ..laws import Example, law_for, no_law
from .contract import Context, IntegratorLaw, Layout
from .stages import Stage, eye, zeros


def _theta_noise(lay: Layout, cov: np.ndarray) -> np.ndarray:
    E = lay.embed("theta")
    return E @ cov @ E.T


def _first_order(ctx: Context, noise: Callable[[Layout, np.ndarray], np.ndarray], needs: bool = False):
    def update(lay: Layout, cov_g: np.ndarray):
        B = lay.embed("theta") * (ctx.h / 2)
        return eye(lay.n, lay.dtype), B, noise(lay, cov_g)

    return IntegratorLaw((), 1, update, lambda p, lay: [], lambda lay: zeros((lay.n, lay.n), lay.dtype), needs)


@law_for(Langevin, examples=lambda model, s: [Example("Langevin", Langevin(), "langevin", 0.6)])
def langevin(integ, ctx: Context) -> IntegratorLaw:
    """theta' = theta + (h/2) g + sqrt(h T) xi: A = I, B = (h/2) E_theta, Qn = h T E_theta E_theta^T."""
    T = ctx.num(integ.temperature)
    return _first_order(ctx, lambda lay, c: _theta_noise(lay, eye(lay.d, lay.dtype) * (ctx.h * T)))


@law_for(NoiselessLangevin, examples=lambda model, s: [
    Example("no noise (SAGA as printed)", NoiselessLangevin(), "no_noise", 0.6, with_estimators=(SAGA,))])
def noiseless_langevin(integ, ctx: Context) -> IntegratorLaw:
    """theta' = theta + (h/2) g: Qn = 0 (SAGA's update as printed in Baker et al. Sec. 4.4)."""
    return _first_order(ctx, lambda lay, c: zeros((lay.n, lay.n), lay.dtype))


@law_for(PrintedEq9Langevin, examples=lambda model, s: [
    Example("mSGLD as printed in eq. (9)", PrintedEq9Langevin(), "msgld_printed_eq9", 0.6)])
@law_for(ModifiedLangevin, examples=lambda model, s: [Example("mSGLD", ModifiedLangevin(), "msgld", 0.6)])
def modified_langevin(integ, ctx: Context) -> IntegratorLaw:
    """Noise matrix G = sqrt(h) (I - (h/c) Cov g), so Qn = h (I - (h/c) Cov g)^2 (Cov g symmetric); c = 8 for
    eq. (54), 2 for eq. (9) as printed (``integ.correction``)."""

    def noise(lay: Layout, cov_g: np.ndarray) -> np.ndarray:
        G = eye(lay.d, lay.dtype) - cov_g * (ctx.h / integ.correction)
        return _theta_noise(lay, G @ G.T * ctx.h)

    return _first_order(ctx, noise, needs=True)


def _preconditioner(model, s) -> list[Example]:
    """G = diag(1.5 .. 0.5) + 0.2 off the diagonal: anisotropic, correlated, positive definite (Gershgorin)."""
    d = model.dim
    G = np.diag(np.linspace(1.5, 0.5, d)) + 0.2 * (np.ones((d, d)) - np.eye(d))
    return [Example("preconditioned SGLD (fixed G)", PreconditionedLangevin(G), "preconditioned", 0.4)]


@law_for(PreconditionedLangevin, examples=_preconditioner)
def preconditioned_langevin(integ, ctx: Context) -> IntegratorLaw:
    """theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi with G constant, symmetric positive definite (new; the form of
    pSGLD, Li, Chen, Carlson & Carin 2016 Alg. 1, with its preconditioner frozen and Gamma = 0).

    The update is affine in (theta, g, xi): A = I (theta keeps its value), B = (h/2) E_theta G (the gradient enters
    theta through G), Qn = h E_theta G E_theta^T (Cov of sqrt(h) G^{1/2} xi = h G for any square root).

    Parameters
    ----------
    integ : PreconditionedLangevin
        The simulator's integrator (its ``G``).
    ctx : Context
        The model's affine parts, h and the number type.

    Returns
    -------
    IntegratorLaw

    Raises
    ------
    ParameterError
        If G does not match the model's dimension, or (on the isotropic route of quadratic observables) does not
        leave the projected coordinates closed.
    """
    G = np.asarray(integ.G, dtype=np.float64)
    if ctx.proj is not None:
        P = ctx.proj
        Gp = P @ G @ P.T
        if not np.allclose(G @ P.T, P.T @ Gp, rtol=1e-12, atol=1e-14):
            raise ParameterError("PreconditionedLangevin on the isotropic route: G mixes the rotated coordinates, so a "
                                 "subset of them is not a closed chain; quadratic observables need an isotropic G here")
        G = Gp
    elif G.shape != (ctx.parts.dim, ctx.parts.dim):
        raise ParameterError(f"PreconditionedLangevin: G is {G.shape} on a model of dimension {ctx.parts.dim}")
    G = ctx.num(G)

    def update(lay: Layout, cov_g: np.ndarray | None):
        E = lay.embed("theta")
        return eye(lay.n, lay.dtype), E @ G * (ctx.h / 2), E @ G @ E.T * ctx.h

    return IntegratorLaw((), 1, update, lambda p, lay: [], lambda lay: zeros((lay.n, lay.n), lay.dtype))


no_law(AdaptivePreconditionedLangevin,
       "pSGLD's preconditioner follows the gradients (V' = alpha V + (1 - alpha) (g/N)^2, G = 1 / (lambda + "
       "sqrt(V'))): the step is quadratic in the gradient, not affine in the state (theta, V), so the chain's moments "
       "do not close; with G frozen it is PreconditionedLangevin, which has an exact law. Check pSGLD by simulation")


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


@law_for(SGHMC, examples=lambda model, s: [
    Example("SGHMC", SGHMC(0.5), "sghmc", 0.2),
    Example(f"SGHMC, refresh every {s.period}", SGHMC(0.5, resample_every=s.period), "sghmc_refresh", 0.2)])
def sghmc_law(integ, ctx: Context) -> IntegratorLaw:
    """v' = (1 - alpha) v + h g + sqrt(2 alpha h T) xi, theta' = theta + v' (Chen et al. 2014 eq. 15)."""
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


@law_for(ExplicitEulerSGHMC, examples=lambda model, s: [
    Example("explicit-Euler SGHMC", ExplicitEulerSGHMC(0.5), "sghmc_euler", 0.1)])
def explicit_euler_sghmc(integ, ctx: Context) -> IntegratorLaw:
    """theta' = theta + v, v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h T) xi (the peers' order)."""
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


@law_for(BAOAB, examples=lambda model, s: [Example("BAOAB", BAOAB(0.5), "baoab", 0.2)])
def baoab(integ, ctx: Context) -> IntegratorLaw:
    """B A O A with the previous step's closing half-kick folded in (Leimkuhler & Matthews 2013); step 0 kicks by
    h/2 (``first``)."""
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


@law_for(UnderdampedLangevinMC, examples=lambda model, s: [  # unit mass, friction critical for the stiffest direction
    Example("ULMC", UnderdampedLangevinMC(gamma=2.0 * model.grad_lipschitz ** 0.5, u=1.0), "ulmc", 1.0)])
def ulmc_law(integ, ctx: Context) -> IntegratorLaw:
    """Underdamped Langevin MCMC (Cheng et al. 2018, Lemma 11): the exact frozen-gradient flow over h, as a
    Gaussian map of (theta, v) with the lemma's covariances."""
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


__all__ = ["baoab", "explicit_euler_sghmc", "langevin", "modified_langevin", "noiseless_langevin",
           "preconditioned_langevin", "sghmc_law", "ulmc_law"]
