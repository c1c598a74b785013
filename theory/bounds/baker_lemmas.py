"""Baker, Fearnhead, Fox & Nemeth (2019) Lemmas 1-4 made exact on Bayesian linear regression (new; docs/papers/baker.md
sec. 3).  The posterior is N(mu, H^-1) with H = Z^T Z/sigma^2 + I/sigma0^2
(simulate.models.linear_regression).

* Lemma 1 (Sec. 4.3): beta_N(phi) = N^(-1/2) grad log p(theta_0 + N^(-1/2) phi | x) = -(H/N) phi, so its Lipschitz
  constant is ||H||/N (spectral norm); the paper's bound is C = 2D with D the per-datum Lipschitz constant of
  Assumption 1, here max(max_i ||z_i||^2/sigma^2, 1/sigma0^2).  Linear growth: |beta_N(phi)| <= (||H||/N)|phi|.
* Lemma 2 (App. A.1.2): the phi-diffusion (8), d phi = -(1/2)(H/N) phi dt + dB, is an OU process:
  E phi_t = exp(-G t/2) phi_0, Cov phi_t = G^-1 (I - exp(-G t)), G = H/N, so
  E|phi_t - phi_hat|^2 = |E phi_t - phi_hat|^2 + tr Cov phi_t, bounded by 2 (F + E) with F = sup_t E|phi_t|^2 and
  E = |phi_hat|^2 (phi = 0 is the mode).
* Lemma 3 (App. A.5): E_theta E_S (a.xi)^2 = a^T (E_theta Cov xi) a <= |a|^2 E_theta E_S |xi|^2; SGLD's noise
  covariance is K (C + sum_i B_i u u^T B_i), u = theta - mu (theory.chains.linear_regression.noise_parts), so over
  the posterior E_theta Cov xi = K (C + sum_i B_i H^-1 B_i).
* Lemma 4 (App. A.5): for the linear ZV control h(theta) = a.z, z = -(1/2) grad log p(theta | x),
  E_theta h^2 = a^T H a/4 (information identity), <= (|a|^2/4) tr H, both O(N).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import expm

from simulate.models.linear_regression import LinearRegressionModel
from simulate.validation import ParameterError, check_finite_array
from theory.chains.linear_regression import noise_parts


def beta_lipschitz(model: LinearRegressionModel) -> float:
    """The Lipschitz constant of beta_N, ``||H||/N`` (exact for linear regression).

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 1 (:doc:`/papers/baker`, sec. 3).
    """
    return float(np.linalg.eigvalsh(model.precision)[-1]) / model.n_data


def per_datum_lipschitz(model: LinearRegressionModel) -> float:
    """Assumption 1's per-datum Lipschitz constant D on linear regression, ``max(max_i ||z_i||^2/sigma^2, 1/sigma0^2)``.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Assumption 1 (:doc:`/papers/baker`, sec. 3).
    """
    return max(float(np.max(np.einsum("nd,nd->n", model.Z, model.Z))) / model.sigma**2, 1 / model.sigma0**2)


def lemma1_constant(model: LinearRegressionModel) -> float:
    """The paper's constant C = 2D of Lemma 1's proof.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 1 (:doc:`/papers/baker`, sec. 3).
    """
    return 2 * per_datum_lipschitz(model)


def _vector(name: str, v, d: int) -> np.ndarray:
    v = check_finite_array(name, v, ndim=(1,))
    if v.size != d:
        raise ParameterError(f"{name} must have {d} entries, got {v.size}")
    return v


def ou_moments(model: LinearRegressionModel, phi0, t: float) -> tuple[np.ndarray, np.ndarray]:
    """The mean and covariance of the phi-diffusion (8) at time t from phi0, an OU process with G = H/N.

    E phi_t = exp(-G t/2) phi0, Cov phi_t = G^-1 (I - exp(-G t)).

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).
    phi0 : array_like, shape (d,)
        The start.
    t : float
        The time, >= 0.

    Returns
    -------
    mean : numpy.ndarray, shape (d,)
    cov : numpy.ndarray, shape (d, d)

    Raises
    ------
    ParameterError
        When phi0 has the wrong size or t is negative or not finite.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), eq. (8) and Appendix A.1.2 (:doc:`/papers/baker`, sec. 3).
    """
    G = model.precision / model.n_data
    phi0 = _vector("phi0", phi0, model.dim)
    t = float(t)
    if not (np.isfinite(t) and t >= 0):
        raise ParameterError(f"t must satisfy 0 <= t < inf, got {t!r}")
    return expm(-0.5 * t * G) @ phi0, np.linalg.solve(G, np.eye(model.dim) - expm(-t * G))


def ou_distance_moment(model: LinearRegressionModel, phi0, phi_hat, t: float) -> float:
    """``E|phi_t - phi_hat|^2`` for the phi-diffusion (8) started at phi0, from the exact OU moments.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).
    phi0 : array_like, shape (d,)
        The start.
    phi_hat : array_like, shape (d,)
        The control variate's centre, in phi.
    t : float
        The time, >= 0.

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 2 (:doc:`/papers/baker`, sec. 3).
    """
    phi_hat = _vector("phi_hat", phi_hat, model.dim)
    m, cov = ou_moments(model, phi0, t)
    return float((m - phi_hat) @ (m - phi_hat) + np.trace(cov))


def lemma2_bound(model: LinearRegressionModel, phi0, phi_hat) -> float:
    """Lemma 2's bound H = 2 (F + E): ``F = |phi0|^2 + tr G^-1`` (bounding sup_t E|phi_t|^2), ``E = |phi_hat|^2``.

    phi = 0 is the mode.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).
    phi0 : array_like, shape (d,)
        The start.
    phi_hat : array_like, shape (d,)
        The control variate's centre, in phi.

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 2, read in expectation (:doc:`/papers/baker`, sec. 3).
    """
    G = model.precision / model.n_data
    phi0 = np.asarray(phi0, dtype=np.float64)
    phi_hat = np.asarray(phi_hat, dtype=np.float64)
    return 2 * (float(phi0 @ phi0) + float(np.trace(np.linalg.inv(G))) + float(phi_hat @ phi_hat))


def expected_sgld_noise_cov(model: LinearRegressionModel, n: int, replace: bool = False) -> np.ndarray:
    """SGLD's minibatch noise covariance over the posterior: E_theta Cov(xi | theta) = K (C + sum_i B_i H^-1 B_i).

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).
    n : int
        The minibatch size.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 3 (:doc:`/papers/baker`, sec. 3).
    """
    _, _, K, B, C = noise_parts(model, n, "sgld", None, replace)
    S = np.linalg.inv(model.precision)
    return K * (C + np.einsum("nij,jk,nkl->il", B, S, B))


def lemma3_sides(model: LinearRegressionModel, a, n: int, replace: bool = False) -> tuple[float, float]:
    """Lemma 3's two sides, ``E_theta E_S (a.xi)^2`` and ``|a|^2 E_theta E_S |xi|^2``, exactly.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).
    a : array_like, shape (d,)
        The direction.
    n : int
        The minibatch size.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    left : float
    right : float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 3 (:doc:`/papers/baker`, sec. 3).
    """
    a = check_finite_array("a", a, ndim=(1,))
    cov = expected_sgld_noise_cov(model, n, replace)
    return float(a @ cov @ a), float(a @ a) * float(np.trace(cov))


def lemma4_sides(model: LinearRegressionModel, a) -> tuple[float, float]:
    """Lemma 4's value E_theta (a.z)^2 = a^T H a/4 and its proof's bound ``(|a|^2/4) tr H``, exactly.

    Parameters
    ----------
    model : simulate.LinearRegressionModel
        The regression, posterior N(mu, H^-1).
    a : array_like, shape (d,)
        The linear ZV control's coefficients.

    Returns
    -------
    value : float
    bound : float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Lemma 4 (:doc:`/papers/baker`, sec. 3).
    """
    a = check_finite_array("a", a, ndim=(1,))
    H = model.precision
    return float(a @ H @ a) / 4, float(a @ a) * float(np.trace(H)) / 4


__all__ = ["beta_lipschitz", "expected_sgld_noise_cov", "lemma1_constant", "lemma2_bound", "lemma3_sides",
           "lemma4_sides", "ou_distance_moment", "ou_moments", "per_datum_lipschitz"]
