"""The first-order bias of the Langevin family for any smooth potential, by quadrature on the grid (new in this form;
the derivation is in docs/grid_law.md).

Workbench convention theta' = theta + (h/2) g + S xi with g = grad log pi + eps, Cov(eps | theta) = Sigma(theta),
pi ∝ exp(-U). The invariant law is pi_h = pi (1 + h rho + O(h^2)), so for every test function phi

    pi_h(phi) - pi(phi) = c1 h + O(h^2),   c1 = Cov_pi(phi, rho),   rho = rho_E + kappa rho_N,

* Euler's part (no Poisson equation): rho_E = |grad U|^2 / 8 - Delta U / 4;
* the gradient noise's part, rho_N with grad rho_N = F = (1/4) (Sigma grad U - div Sigma) ((div Sigma)_i =
  sum_j d_j Sigma_ij): in 1-D always (rho_N = -Sigma/4 + (1/4) int U' Sigma), in 2-D when F is a gradient (curl F = 0,
  e.g. an isotropic constant Sigma); otherwise the weighted Poisson equation div(pi grad rho_N) = -(1/4) d_i d_j
  (Sigma_ij pi) has no quadrature solution and this module says so (use :func:`bias_slope`);
* kappa = 1 for Langevin (SGLD, SGLD-CV, additive noise), 1 - 8/c for the noise matrix sqrt(h) (I - (h/c) Sigma):
  0 for mSGLD (c = 8, Vollmer et al. eq. 53: the noise term cancels), -3 for eq. (9) as printed (c = 2).

In 1-D this is Vollmer et al. (2016) Theorem 3.3/6 with eqs. (50)/(53) evaluated without solving the Poisson equation
for each phi. Quadrature: the trapezoid rule on the grid law's nodes (spectral for smooth decaying integrands), the
antiderivatives through the FFT of functions that vanish at the box's edge; the error estimate is the difference
between the law's fine and coarse grids.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from simulate.estimators.minibatch import FullGradient
from simulate.integrators.langevin import Langevin, ModifiedLangevin
from simulate.validation import ParameterError

from .kernels import gradient_law

#: Relative size of curl F above which the 2-D noise term is refused.
CURL_TOL = 1e-6


def noise_factor(sampler) -> float:
    """kappa of the module docstring: 0 for the full gradient, 1 for Langevin, 1 - 8/c for ModifiedLangevin-type.

    Parameters
    ----------
    sampler : Sampler
        A Langevin-family sampler.

    Returns
    -------
    float
        The factor kappa of the gradient noise's part of the first-order bias.

    Raises
    ------
    ParameterError
        For an integrator outside the Langevin family.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (50) and (53) (kappa = 0 for mSGLD, c = 8).
    """
    integ = sampler.integrator
    if isinstance(sampler.estimator, FullGradient):
        return 0.0
    if isinstance(integ, ModifiedLangevin):
        return 1.0 - 8.0 / integ.correction
    if type(integ) is Langevin:
        return 1.0
    raise ParameterError(f"integrator {type(integ).__name__}: the first-order bias by quadrature is derived for the "
                         "Langevin family (Euler, SGLD, mSGLD, SGLD-CV); use bias_slope for others")


def _derivatives(model, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(grad U (P, d), Delta U (P,)) with Delta U by 4th-order central differences of the model's gradient."""
    g = -np.asarray(model.grad_log_post(pts), float)
    P, d = pts.shape
    lap = np.zeros(P)
    eps = 1e-3 * max(1.0, float(np.abs(pts).max()))
    for j in range(d):
        e = np.zeros(d)
        e[j] = eps
        gp = [-np.asarray(model.grad_log_post(pts + s * e), float)[:, j] for s in (2, 1, -1, -2)]
        lap += (-gp[0] + 8 * gp[1] - 8 * gp[2] + gp[3]) / (12 * eps)
    return g, lap


def _antiderivative(vals: np.ndarray, axis: int, spacing: float) -> np.ndarray:
    """int_{-inf}^x of a function sampled on a periodic grid along ``axis`` whose integral over the axis is 0 and
    which vanishes at the edge (FFT; the constant makes it 0 at the first node)."""
    n = vals.shape[axis]
    k = 2 * np.pi * np.fft.fftfreq(n, spacing)
    shape = [1] * vals.ndim
    shape[axis] = n
    F = np.fft.fft(vals, axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        G = np.where(k.reshape(shape) != 0, F / (1j * k.reshape(shape)), 0.0)
    out = np.real(np.fft.ifft(G, axis=axis))
    first = np.take(out, [0], axis=axis)
    return out - first


def _level_c1(law, lv, f: Callable, kappa: float) -> np.ndarray:
    """c1 on one level of the law (module docstring)."""
    grid = lv.grid
    pts = grid.points[:, : law.d]
    w = law._posterior_weights(lv)
    phi = np.asarray(f(pts), float)
    phi = phi.reshape(phi.shape[0], -1)
    phibar = phi - w @ phi
    gU, lap = _derivatives(law.model, pts)
    rho = 0.125 * (gU**2).sum(axis=1) - 0.25 * lap
    c1 = (w * (rho - w @ rho)) @ phibar
    if kappa != 0.0:
        c1 = c1 + kappa * _noise_term(law, lv, pts, w, phibar, gU)
    return c1


def _noise_term(law, lv, pts, w, phibar, gU) -> np.ndarray:
    """Cov_pi(phi, rho_N) = -int F . G with div G = phibar pi (G decaying; module docstring)."""
    grid, d = lv.grid, law.d
    Sigma = gradient_law(law.sampler, pts).cov()  # (P, d, d)
    shape = grid.sizes
    # F = (1/4) (Sigma grad U - div Sigma), div Sigma by 4th-order differences of the law's covariance
    divS = np.zeros((pts.shape[0], d))
    eps = 1e-3 * max(1.0, float(np.abs(pts).max()))
    for j in range(d):
        e = np.zeros(d)
        e[j] = eps
        cs = [gradient_law(law.sampler, pts + s * e).cov()[:, :, j] for s in (2, 1, -1, -2)]
        divS += (-cs[0] + 8 * cs[1] - 8 * cs[2] + cs[3]) / (12 * eps)
    F = 0.25 * (np.einsum("pij,pj->pi", Sigma, gU) - divS)
    # in z = L^-1 (theta - c): Cov(phi, rho) = int g rho dz with g = phibar pi |det L|, grad_z rho = L^T F
    Fz = F @ grid.frame
    dz = grid.spacing
    dens_z = w / np.prod(dz)
    out = np.zeros(phibar.shape[1])
    for c in range(phibar.shape[1]):
        g = (phibar[:, c] * dens_z).reshape(shape)
        if d == 1:
            G = _antiderivative(g, 0, dz[0]).reshape(-1)
            out[c] = -(Fz[:, 0] * G).sum() * dz[0]
            continue
        _check_curl(Fz, shape, dz)
        q = g.sum(axis=0) * dz[0]  # int g dz_1, a function of z_2
        p1 = dens_z.reshape(shape).sum(axis=1) * dz[1]  # the first marginal
        G1 = _antiderivative(g - p1[:, None] * q[None, :], 0, dz[0])
        G2 = p1[:, None] * _antiderivative(q, 0, dz[1])[None, :]
        out[c] = -(Fz[:, 0] * G1.reshape(-1) + Fz[:, 1] * G2.reshape(-1)).sum() * dz[0] * dz[1]
    return out


def _check_curl(F: np.ndarray, shape, dx) -> None:
    """ParameterError when F (P, 2) on the grid is not a gradient (its curl is not ~0 relative to its size)."""
    F1, F2 = F[:, 0].reshape(shape), F[:, 1].reshape(shape)
    curl = np.gradient(F2, dx[0], axis=0) - np.gradient(F1, dx[1], axis=1)
    scale = np.abs(np.gradient(F1, dx[0], axis=0)).max() + np.abs(np.gradient(F2, dx[1], axis=1)).max()
    inner = (slice(2, -2), slice(2, -2))
    if np.abs(curl[inner]).max() > CURL_TOL * max(scale, 1e-300):
        raise ParameterError(
            "the gradient-noise term of the first-order bias needs the 2-D weighted Poisson equation "
            "div(pi grad rho) = -(1/4) d_i d_j (Sigma_ij pi) here: the field (1/4)(Sigma grad U - div Sigma) is not a "
            f"gradient (|curl| {np.abs(curl[inner]).max():.3g} against {scale:.3g}), so it has no quadrature solution; "
            "use bias_slope (the slope of grid_law as h -> 0)")


def first_order_coefficient(law, f: Callable):
    """c1 = Cov_pi(f, rho) of the module docstring, on the grids of ``law`` (a :class:`.law.GridLaw`).

    Parameters
    ----------
    law : GridLaw
        The grid law of a Langevin-family sampler (its model, estimator and grids are used; h is not).
    f : callable
        theta (M, d) -> (M,) or (M, k).

    Returns
    -------
    Result
        c1 (a float, or an array for vector-valued f) and its error (fine minus coarse grid).

    Raises
    ------
    ParameterError
        For a sampler outside the Langevin family, temperature != 1, or a 2-D noise term that needs a Poisson solve.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 3.3/6 and eqs. (40)-(41), (50), (53); docs/grid_law.md (the derivation
    of rho_E and rho_N).
    """
    from .law import Result

    if law.D != law.d:
        raise ParameterError("the first-order bias by quadrature is for the Langevin family, not SGHMC")
    if getattr(law.sampler.integrator, "temperature", 1.0) != 1.0:
        raise ParameterError("temperature must be 1 for the first-order bias by quadrature")
    kappa = noise_factor(law.sampler)
    fine, coarse = (_level_c1(law, lv, f, kappa) for lv in (law.fine, law.coarse))
    val = fine[0] if fine.size == 1 else fine
    return Result(val, float(np.max(np.abs(fine - coarse))))


def bias_slope(make_sampler: Callable[[float], object], f: Callable, hs, *, tol: float = 1e-10, theta0=None):
    """c1 as the slope of grid_law at h -> 0: (pi_h(f) - pi(f)) / h at the step sizes ``hs``, extrapolated to h = 0
    by a polynomial through them (exact pi_h from :func:`theory.grid_law`).

    Parameters
    ----------
    make_sampler : callable
        h -> Sampler.
    f : callable
        A scalar test function theta (M, d) -> (M,).
    hs : sequence of float
        Distinct small step sizes (at least 2).
    tol : float
        The grid laws' tolerance.
    theta0 : array_like, optional
        The start of the grid laws (default 0; the stationary law does not depend on it).

    Returns
    -------
    Result
        The extrapolated slope and the spread of the last two extrapolations as its error.

    Raises
    ------
    ParameterError
        When ``hs`` holds fewer than 2 step sizes or one that is not positive, or a grid law is refused.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 3.3 (pi_h(f) - pi(f) = c1 h + O(h^2)); the extrapolation is new.
    """
    from .law import Result, grid_law

    hs = np.asarray(sorted(hs), float)
    if hs.size < 2 or np.any(hs <= 0):
        raise ParameterError(f"hs must hold at least 2 positive step sizes, got {hs.tolist()}")
    ys = []
    for h in hs:
        lw = grid_law(make_sampler(float(h)), theta0, tol=tol)
        ys.append((float(lw.stationary_expectation(f).value) - float(lw.posterior_expectation(f).value)) / h)
    ys = np.array(ys)
    fits = [np.polyval(np.polyfit(hs[: k + 1], ys[: k + 1], k), 0.0) for k in range(1, hs.size)]
    err = abs(fits[-1] - fits[-2]) if len(fits) > 1 else abs(ys[1] - ys[0])
    return Result(float(fits[-1]), float(err))


__all__ = ["CURL_TOL", "bias_slope", "first_order_coefficient", "noise_factor"]
