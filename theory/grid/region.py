"""Where the grid goes: the posterior's log density, its mode, and a frame x = c + L z in which it has about unit
scale (:class:`.grid.Grid`).

The log density (up to a constant) is read from the model: a model with an affine gradient has the Gaussian
posterior of :func:`theory.linear_gaussian.affine.posterior`; otherwise ``log_post(theta)``,
``log_post_and_grad(theta)`` (Baker et al.'s toys) or ``potential(theta)`` (1-D potentials, log pi = -U). The frame
comes from a scan of the log density: the set where it lies within ``cut`` of its maximum gives the region, the
covariance of the normalised density over it the axes, and the curvature at the mode the scale along each axis
(the smaller of the two, so that each mode of a multimodal target is resolved).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from simulate.validation import ParameterError

from ..linear_gaussian.affine import posterior, read_parts
from .grid import TAPER

#: The region holds {log pi > max log pi - CUT} (density below e^-CUT of its peak is outside).
CUT = 40.0
#: Half-width of the first scan, in units of the curvature scale at the mode.
SCAN_WIDTH = 40.0


@dataclass(frozen=True)
class Frame:
    """x = centre + frame z, the posterior's region ``|z_j| < half_j`` (see the module docstring).

    Parameters
    ----------
    centre : numpy.ndarray
        c, shape (D,).
    frame : numpy.ndarray
        L, shape (D, D), invertible.
    half : numpy.ndarray
        The half-widths of the region in z, shape (D,).
    """

    centre: np.ndarray
    frame: np.ndarray
    half: np.ndarray


def log_density(model) -> Callable[[np.ndarray], np.ndarray]:
    """theta (M, d) -> log pi(theta) (M,) up to a constant, read from the model (module docstring).

    Parameters
    ----------
    model : simulate model
        The model whose posterior is meant.

    Returns
    -------
    Callable
        The log density.

    Raises
    ------
    ParameterError
        When the model offers none of the forms the module docstring lists.
    """
    if hasattr(model, "affine_parts"):
        mean, cov = posterior(read_parts(model))
        prec = np.linalg.inv(cov)
        return lambda th: -0.5 * np.einsum("mi,ij,mj->m", th - mean, prec, th - mean)
    if hasattr(model, "log_post"):
        return lambda th: np.asarray(model.log_post(th), dtype=float).reshape(-1)
    if hasattr(model, "log_post_and_grad"):
        return lambda th: np.asarray(model.log_post_and_grad(th)[0], dtype=float).reshape(-1)
    if hasattr(model, "potential"):
        return lambda th: -np.asarray(model.potential(th), dtype=float).reshape(-1)
    raise ParameterError(f"model {type(model).__name__}: the grid law needs the log posterior up to a constant; give "
                         "the model a log_post(theta) method ((M, d) -> (M,))")


def _mode(model, logp: Callable) -> np.ndarray:
    """A maximiser of log pi: the model's own posterior_mode() where it has one, else BFGS from 0."""
    d = model.dim
    finder = getattr(model, "posterior_mode", None)
    if callable(finder):
        try:
            return np.asarray(finder(), dtype=float).reshape(d)
        except (RuntimeError, ParameterError, np.linalg.LinAlgError):
            pass
    res = optimize.minimize(lambda t: -float(logp(t[None, :])[0]), np.zeros(d),
                            jac=lambda t: -np.asarray(model.grad_log_post(t[None, :]), float)[0], method="BFGS")
    if not np.all(np.isfinite(res.x)):
        raise ParameterError(f"model {type(model).__name__}: no finite posterior mode found (is the posterior proper?)")
    return res.x


def _curvature(model, mode: np.ndarray) -> np.ndarray:
    """-Hessian of log pi at the mode by central differences of the gradient, (d, d)."""
    d = mode.size
    eps = 1e-4 * max(1.0, float(np.abs(mode).max()))
    H = np.empty((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = eps
        g = np.asarray(model.grad_log_post(np.stack([mode + e, mode - e])), float)
        H[:, j] = -(g[0] - g[1]) / (2 * eps)
    return 0.5 * (H + H.T)


def _one_nat(logp: Callable, mode: np.ndarray, v: np.ndarray) -> float:
    """The distance r along v (both ways, the smaller) at which log pi falls 1 below its value at the mode."""
    top = float(logp(mode[None, :])[0])
    out = []
    for sgn in (1.0, -1.0):
        lo, hi = 0.0, 1.0
        for _ in range(200):  # bracket: double hi until log pi drops by more than 1
            if float(logp((mode + sgn * hi * v)[None, :])[0]) < top - 1.0:
                break
            lo, hi = hi, 2.0 * hi
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if float(logp((mode + sgn * mid * v)[None, :])[0]) >= top - 1.0 else (lo, mid)
        out.append(hi)
    return float(min(out))


def _scan(logp: Callable, mode: np.ndarray, axes: np.ndarray, cut: float) -> tuple[np.ndarray, np.ndarray]:
    """(points, log densities) of a tensor scan around ``mode`` along ``axes`` (columns scaled) that reaches past
    {log pi > max - cut}, widened until it does."""
    d = mode.size
    width = SCAN_WIDTH
    for _ in range(5):
        u = np.linspace(-width, width, 2001 if d == 1 else 161)
        mesh = np.stack([m.reshape(-1) for m in np.meshgrid(*([u] * d), indexing="ij")], axis=1)
        pts = mode + mesh @ axes.T
        lp = logp(pts)
        if np.any(np.isnan(lp)):
            raise ParameterError("the log posterior is NaN somewhere in the scanned region")
        keep = lp > np.nanmax(lp) - cut
        if not np.any(keep & (np.abs(mesh).max(axis=1) >= 0.98 * width)):
            return pts[keep], lp[keep]
        width *= 4.0
    raise ParameterError("the posterior's mass does not fit in the scanned region (an improper or extremely heavy-"
                         "tailed posterior?); give the region explicitly (region=...)")


def posterior_frame(model, cut: float = CUT) -> Frame:
    """The frame and region of the model's posterior (module docstring).

    Parameters
    ----------
    model : simulate model
        A model of dimension 1 or 2.
    cut : float
        The region holds {log pi > max log pi - cut}.

    Returns
    -------
    Frame
        centre, frame (D, D) and the half-widths of the region in z (with room for the taper).

    Raises
    ------
    ParameterError
        When the posterior has no finite mode or does not fit in the scanned region.
    """
    logp = log_density(model)
    if hasattr(model, "affine_parts"):
        mean, cov = posterior(read_parts(model))
        lam, V = np.linalg.eigh(cov)
        return Frame(mean, V * np.sqrt(lam), np.full(mean.size, np.sqrt(2.0 * cut) + TAPER + 0.5))
    mode = _mode(model, logp)
    H = _curvature(model, mode)
    _, V = np.linalg.eigh(H)
    local = np.array([_one_nat(logp, mode, V[:, j]) for j in range(mode.size)])
    pts, lp = _scan(logp, mode, V * local, cut)
    w = np.exp(lp - lp.max())
    w /= w.sum()
    mean = w @ pts
    cov = (pts - mean).T @ ((pts - mean) * w[:, None])
    lam2, V2 = np.linalg.eigh(0.5 * (cov + cov.T))
    curv = np.einsum("ij,ik,kj->j", V2, H, V2)
    scale = np.sqrt(np.maximum(lam2, 1e-300))
    scale = np.where(curv > 0, np.minimum(scale, 1.0 / np.sqrt(np.where(curv > 0, curv, 1.0))), scale)
    L = V2 * scale
    z = (pts - mean) @ np.linalg.inv(L).T
    half = np.abs(z).max(axis=0) + TAPER + 0.5
    return Frame(mean, L, half)


def posterior_masses(log_values: np.ndarray) -> np.ndarray:
    """The posterior's masses at a uniform grid's nodes from its log density there: the cubature of every posterior
    expectation on the grid (the rule converges spectrally for a smooth density that vanishes at the box's edge).

    Parameters
    ----------
    log_values : numpy.ndarray, shape (n_nodes,)
        log pi at the nodes, up to a constant (-inf allowed where pi vanishes; at least one finite).

    Returns
    -------
    numpy.ndarray, shape (n_nodes,)
        exp(log pi) normalised to sum 1.

    Raises
    ------
    ParameterError
        When no node has a finite log density.

    References
    ----------
    Trefethen & Weideman (2014), "The exponentially convergent trapezoidal rule", SIAM Review 56(3), 385-458 (the
    trapezoidal rule for smooth integrands that decay at the ends of the interval; here a box holding the mass).
    """
    lp = np.asarray(log_values, dtype=float)
    top = np.max(lp) if lp.size else -np.inf
    if not np.isfinite(top):
        raise ParameterError("the log posterior is not finite at any node of the grid")
    w = np.exp(lp - top)
    return w / w.sum()


__all__ = ["CUT", "Frame", "log_density", "posterior_frame", "posterior_masses"]
