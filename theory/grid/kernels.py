"""The one-step transition kernel on the grid: each integrator's conditional law of the next state given the state
and the gradient estimate (route "grid" of :mod:`theory.laws`), and the transition matrix it makes with the law of
the gradient (:mod:`.gradient_laws`).

Every integrator here is affine-Gaussian in the gradient: given the state x and the estimate g,

    x' = A x + B g + zeta,   zeta ~ N(0, Q(x)),

* Langevin (SGLD, Euler / ULA; temperature T): x = theta, A = I, B = (h/2) I, Q = h T I;
* ModifiedLangevin (mSGLD, Vollmer et al. eq. 9/54): Q = S S^T with S = sqrt(h) (I - (h/8) Cov(g | theta)), Cov the
  estimator's exact noise covariance at theta (the simulator's own ``noise_cov`` and ``noise_matrix``);
* SGHMC (Chen et al. 2014 eq. 15, the momentum first) on a 1-D model, x = (theta, v):
  v' = (1 - alpha) v + h g + sqrt(2 alpha h T) xi, theta' = theta + v';
* explicit-Euler SGHMC (the peers' order, :class:`simulate.integrators.underdamped.ExplicitEulerSGHMC`):
  theta' = theta + v, v' = (1 - alpha) v + h g + sqrt(2 alpha h T) xi.

With the grid x = c + L z (:mod:`.grid`), one step from a source x_a has, in z and with the grid's origin z_0,
E exp(-i kappa . (z' - z_0)) = exp(i kappa . (z_0 - L^-1 (A x_a - c))) E[exp(-i kappa . L^-1 B g)] exp(-kappa^T
L^-1 Q L^-T kappa / 2): the kernel enters through its characteristic function only, so no grid has to resolve the
step's width sqrt(h). The inverse FFT of that function over the lattice is the band-limited image of the source's
kernel, i.e. column a of the transition matrix T acting on masses (new: a Fourier-Nystrom discretisation; it
conserves mass exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from simulate.integrators.langevin import Langevin, ModifiedLangevin, PrintedEq9Langevin
from simulate.integrators.sghmc import SGHMC
from simulate.integrators.underdamped import ExplicitEulerSGHMC
from simulate.validation import ParameterError

from ..laws import law_for, law_of
from .gradient_laws import GridContext, gaussian_factor
from .grid import Grid
from .minibatch import CHUNK_ENTRIES, phases, tensor_sum


@dataclass(frozen=True)
class IntegratorContext:
    """What an integrator's law reads.

    Parameters
    ----------
    model : Model
        The model (its dimension d).
    estimator : GradientEstimator
        The gradient estimator (mSGLD's noise matrix reads its noise covariance).
    h : float
        The step size.
    """

    model: object
    estimator: object
    h: float


@dataclass(frozen=True)
class AffineStep:
    """x' = A x + B g + N(0, Q(theta)), the integrator's affine-Gaussian step.

    Parameters
    ----------
    A : numpy.ndarray
        The state's matrix, (D, D).
    B : numpy.ndarray
        The gradient's matrix, (D, d).
    root : callable
        theta of shape (P, d) -> R of shape (P, D, D) with Q = R R^T.
    v0_var : float or None
        The variance of the momentum at the start (None for first-order schemes).
    name : str
        The scheme's name.
    state_names : tuple of str
        The names of the state's coordinates.
    """

    A: np.ndarray
    B: np.ndarray
    root: Callable[[np.ndarray], np.ndarray]
    v0_var: float | None = None
    name: str = ""
    state_names: tuple[str, ...] = field(default=("theta",))

    @property
    def D(self) -> int:
        return self.A.shape[0]

    @property
    def d(self) -> int:
        return self.B.shape[1]


def _constant_root(R: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    return lambda th: np.broadcast_to(R, (th.shape[0],) + R.shape)


@law_for(Langevin, route="grid")
def langevin_grid_law(integ: Langevin, ctx: IntegratorContext) -> AffineStep:
    """theta' = theta + (h/2) g + sqrt(h T) xi.

    Parameters
    ----------
    integ : Langevin
        The integrator.
    ctx : IntegratorContext
        The model, estimator and step size.

    Returns
    -------
    AffineStep
        The step's A, B and noise root.

    References
    ----------
    Welling & Teh (2011), eq. (4); Vollmer, Zygalakis & Teh (2016), eqs. (5)-(6) (SGLD in the workbench's
    convention, README).
    """
    d, h = ctx.model.dim, ctx.h
    return AffineStep(np.eye(d), 0.5 * h * np.eye(d), _constant_root(integ.noise_scale(h) * np.eye(d)),
                      name="langevin")


def _modified(integ: ModifiedLangevin, ctx: IntegratorContext) -> AffineStep:
    d, h = ctx.model.dim, ctx.h

    def root(th: np.ndarray) -> np.ndarray:
        cov = np.asarray(ctx.estimator.noise_cov(ctx.model, th), dtype=float)
        S = np.asarray(integ.noise_matrix(h, cov), dtype=float)
        return np.broadcast_to(S.reshape((-1, d, d)) if S.ndim == 3 else S, (th.shape[0], d, d))

    return AffineStep(np.eye(d), 0.5 * h * np.eye(d), root, name=type(integ).__name__)


law_for(ModifiedLangevin, route="grid")(_modified)
law_for(PrintedEq9Langevin, route="grid")(_modified)


def _momentum_checks(integ: SGHMC, ctx: IntegratorContext) -> None:
    if ctx.model.dim != 1:
        raise ParameterError(f"{type(integ).__name__} on the grid route needs a 1-D model (its phase space (theta, v) "
                             f"is then 2-D), got dim = {ctx.model.dim}")
    if integ.resample_every is not None:
        raise ParameterError("resample_every must be None on the grid route (a momentum refresh makes the chain "
                             "periodic; use theory.exact_law on affine models for that)")


@law_for(SGHMC, route="grid")
def sghmc_grid_law(integ: SGHMC, ctx: IntegratorContext) -> AffineStep:
    """v' = (1 - alpha) v + h g + sqrt(2 alpha h T) xi, theta' = theta + v' (Chen et al. eq. 15).

    Parameters
    ----------
    integ : SGHMC
        The integrator.
    ctx : IntegratorContext
        The model, estimator and step size.

    Returns
    -------
    AffineStep
        The step's A, B and noise root.

    Raises
    ------
    ParameterError
        On a model of dimension other than 1, or with a momentum refresh (``resample_every``).

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15).
    """
    _momentum_checks(integ, ctx)
    a, h, s = integ.alpha, ctx.h, integ.noise_scale(ctx.h)
    A = np.array([[1.0, 1.0 - a], [0.0, 1.0 - a]])
    return AffineStep(A, np.array([[h], [h]]), _constant_root(np.array([[s, 0.0], [s, 0.0]])),
                      integ.initial_var(h), "sghmc", ("theta", "v"))


@law_for(ExplicitEulerSGHMC, route="grid")
def explicit_euler_sghmc_grid_law(integ: ExplicitEulerSGHMC, ctx: IntegratorContext) -> AffineStep:
    """theta' = theta + v, v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h T) xi.

    Parameters
    ----------
    integ : ExplicitEulerSGHMC
        The integrator.
    ctx : IntegratorContext
        The model, estimator and step size.

    Returns
    -------
    AffineStep
        The step's A, B and noise root.

    Raises
    ------
    ParameterError
        On a model of dimension other than 1, or with a momentum refresh (``resample_every``).

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15), with the position updated first (the peers' order).
    """
    _momentum_checks(integ, ctx)
    a, h, s = integ.alpha, ctx.h, integ.noise_scale(ctx.h)
    A = np.array([[1.0, 1.0], [0.0, 1.0 - a]])
    return AffineStep(A, np.array([[0.0], [h]]), _constant_root(np.array([[0.0, 0.0], [0.0, s]])),
                      integ.initial_var(h), "sghmc_euler", ("theta", "v"))


def step_law(sampler) -> AffineStep:
    """The integrator's affine-Gaussian step for ``sampler`` (its law registered on the route "grid").

    Parameters
    ----------
    sampler : Sampler
        The sampler.

    Returns
    -------
    AffineStep
        Its integrator's step.

    Raises
    ------
    ParameterError
        When the integrator has no law on the route "grid".
    """
    return law_of(sampler.integrator, "grid")(sampler.integrator,
                                              IntegratorContext(sampler.model, sampler.estimator, float(sampler.h)))


def gradient_law(sampler, points: np.ndarray):
    """The law of the sampler's gradient estimate at ``points`` (registered on the route "grid").

    Parameters
    ----------
    sampler : Sampler
        The sampler.
    points : numpy.ndarray
        The points theta, shape (P, d).

    Returns
    -------
    PointMass or GaussianGradient or MinibatchGradient
        The law of g at every point (:mod:`theory.grid.gradient_laws`).

    Raises
    ------
    ParameterError
        When the estimator has no law on the route "grid", or a gradient is not finite.
    """
    ctx = GridContext(sampler.model, float(sampler.h), np.ascontiguousarray(points, dtype=float))
    return law_of(sampler.estimator, "grid")(sampler.estimator, ctx)


@dataclass
class Columns:
    """Columns of the transition matrix for some sources.

    Parameters
    ----------
    T : numpy.ndarray
        The columns, shape (n_nodes, S).
    bound : float
        The gradient laws' error bound.
    mean_z, sd_z : numpy.ndarray
        The kernels' first two moments in z, shape (S, D) (for the escape check).
    """

    T: np.ndarray
    bound: float
    mean_z: np.ndarray
    sd_z: np.ndarray


def columns(grid: Grid, step: AffineStep, sampler, sources: np.ndarray, start_var: float | None = None) -> Columns:
    """The masses after one step from each source state, as columns of the transition matrix (module docstring).

    Parameters
    ----------
    grid : Grid
        The grid.
    step : AffineStep
        The integrator's step.
    sampler : Sampler
        The sampler (its gradient law).
    sources : numpy.ndarray
        The source states, shape (S, D).
    start_var : float, optional
        The sources' momentum is N(v, start_var) instead of exactly v (the start of SGHMC).

    Returns
    -------
    Columns
        The columns (n_nodes, S), their error bound and the kernels' moments.

    References
    ----------
    New: a Fourier-Nystrom discretisation of the kernel through its characteristic function (module docstring).
    """
    d = step.d
    Linv = grid.frame_inv
    G = Linv @ step.B
    pos, inv = np.unique(sources[:, :d], axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    law = gradient_law(sampler, pos)
    Rz = np.einsum("ij,pjk->pik", Linv, step.root(pos))
    Qz = np.einsum("pij,pkj->pik", Rz, Rz)
    gmean = law.mean if hasattr(law, "mean") else law.offset
    cov_g = law.cov()
    shift = grid.to_z(sources @ step.A.T)
    out = np.empty((grid.n_nodes, sources.shape[0]))
    chunk = max(1, CHUNK_ENTRIES // (4 * grid.n_nodes))
    bound = 0.0
    extra = None
    if start_var:  # E over the start momentum v0 ~ N(v, start_var) of the phase's factor exp(-i kappa . L^-1 A e_v v0)
        kv = (Linv @ step.A)[:, 1]
        mesh = np.meshgrid(*grid.kappa, indexing="ij")
        extra = np.exp(-0.5 * start_var * sum(kv[j] * mesh[j] for j in range(grid.D)) ** 2)
    for a in range(0, pos.shape[0], chunk):
        part = law_chunk(law, slice(a, a + chunk))
        cf = part.cf(G, grid.kappa) * gaussian_factor(Qz[a:a + chunk], grid.kappa)
        bound = max(bound, part.bound)
        src = np.flatnonzero((inv >= a) & (inv < a + chunk))
        for b in range(0, src.size, chunk):
            s_idx = src[b:b + chunk]
            W = (-np.asarray(grid.half) - shift[s_idx])[:, None, :]
            psi = tensor_sum(phases(W, grid.kappa)) * cf[inv[s_idx] - a]
            if extra is not None:
                psi *= extra
            cols = np.real(np.fft.ifftn(psi, axes=tuple(range(1, grid.D + 1))))
            out[:, s_idx] = cols.reshape(s_idx.size, -1).T
    mean_z = shift + (gmean @ G.T)[inv]
    var_z = np.einsum("ij,pjk,ik->pi", G, cov_g, G)[inv] + np.einsum("pii->pi", Qz)[inv]
    return Columns(out, bound, mean_z, np.sqrt(np.maximum(var_z, 0.0)))


def law_chunk(law, sl: slice):
    """The same gradient law restricted to the points ``sl`` (every array field sliced).

    Parameters
    ----------
    law : PointMass or GaussianGradient or MinibatchGradient
        A gradient law at P points.
    sl : slice
        The points to keep.

    Returns
    -------
    PointMass or GaussianGradient or MinibatchGradient
        The law at those points.
    """
    fields = {k: (v[sl] if isinstance(v, np.ndarray) and v.ndim >= 2 else v) for k, v in law.__dict__.items()}
    return type(law)(**fields)


__all__ = ["AffineStep", "Columns", "IntegratorContext", "columns", "explicit_euler_sghmc_grid_law", "gradient_law",
           "langevin_grid_law", "law_chunk", "sghmc_grid_law", "step_law"]
