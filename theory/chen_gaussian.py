"""Chen, Wang, Zhang, Su & Carin (vrSG-MCMC): the quantities of Lemma 2, Proposition 10 and Theorem 6 for given
per-datum gradients, exact enumeration of the estimators' moments, and the exact finite-L MSE of SGLD and vrSGLD on
the Gaussian mean model (../shared/notes/000_002.md sections 5-7).

Numbering: V1 = arXiv version, V2 = SCIS 2019 (notes section 0).  alpha_i = grad log p(d_i | theta_l) (current
state), beta_i = grad log p(d_i | theta_tilde) (anchor); arrays of shape (N, d).  s^2(v) = sum_i ||v_i - v_bar||^2
/ (N - 1) and X_k = N (N - n_k)/(n_k (N - 1)).

**Workbench convention.**  theta' = theta + (h/2) g + sqrt(h) xi (the paper writes theta - h grad U + sqrt(2h) zeta,
so the notes' h is eps = h_wb/2).  On the Gaussian mean model (posterior N(mu, 1/P)) both SGLD and vrSGLD are
e' = rho e + (h/2) xi_l + sqrt(h) zeta_l with e = theta - mu, rho = 1 - h P / 2, and xi_l the gradient error:
for SGLD a fresh (N/sigma^2)(x_bar - x_bar_batch) each step; for vrSGLD the correction term is exactly
N (theta_tilde - theta)/sigma^2 whatever the n2-batch, so xi is the anchor batch's error, FROZEN for the m steps of
an epoch (notes 6.2).  Time averages are over theta_0 .. theta_{L-1} (README; theta_0 deterministic).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive

from . import subset_moments as sm

# ------------------------------------------------------------------------------------------ generic gradients


def _grads(name: str, v) -> np.ndarray:
    """(N, d) float array of per-datum gradients (a (N,) array is read as d = 1); N >= 2."""
    a = check_finite_array(name, v, ndim=(1, 2))
    if a.ndim == 1:
        a = a[:, None]
    if a.shape[0] < 2:
        raise ParameterError(f"{name} must hold N >= 2 per-datum gradients, got N = {a.shape[0]}")
    return a


def _sizes(N: int, **ns: int) -> None:
    """Check 1 <= n_k <= N for every named minibatch size."""
    for k, v in ns.items():
        check_int(k, v, 1, N)


def _sums(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(sum_{ij} a_i.b_j, sum_{i != j} a_i.b_j, sum_{i<j} a_i.b_j)."""
    s_all = float(a.sum(0) @ b.sum(0))
    diag = float(np.einsum("id,id->", a, b))
    csum = np.cumsum(a, axis=0) - a  # sum_{i<j} a_i
    s_lt = float(np.einsum("jd,jd->", csum, b))
    return s_all, s_all - diag, s_lt


def sample_var(v) -> float:
    """s^2(v) = sum_i ||v_i - v_bar||^2 / (N - 1) (trace of the unbiased sample covariance), notes section 5."""
    a = _grads("v", v)
    c = a - a.mean(0)
    return float(np.einsum("id,id->", c, c) / (a.shape[0] - 1))


def gamma(alpha) -> float:
    """Gamma_l = (1/N^2) sum_{ij} a_i.a_j - sum_{i != j} a_i.a_j/(N(N-1)), Lemma 2 (V1, V2); equals s^2(alpha)/N."""
    a = _grads("alpha", alpha)
    N_ = a.shape[0]
    s_all, s_ne, _ = _sums(a, a)
    return s_all / N_**2 - s_ne / (N_ * (N_ - 1))


def _X(N_: int, k: int) -> float:
    """X_k = N (N - n_k) / (n_k (N - 1))."""
    return N_ * (N_ - k) / (k * (N_ - 1))


def A_term(alpha, n2: int) -> float:
    """A_l = (N/n2 - 1) sum_{ij} a_i.a_j - 2 X2 sum_{i<j} a_i.a_j, Prop. 10 (V1 App. D) / Theorem 6 (V1) / 2 (V2)."""
    a = _grads("alpha", alpha)
    N_ = a.shape[0]
    _sizes(N_, n2=n2)
    s_all, _, s_lt = _sums(a, a)
    return (N_ / n2 - 1) * s_all - 2 * _X(N_, n2) * s_lt


def B_term(beta, n1: int, n2: int) -> float:
    """B_l = (N/n2 + N/n1 - 2) sum_{ij} b_i.b_j - 2 (X2 + X1) sum_{i<j} b_i.b_j, Prop. 10 (V1 App. D)."""
    b = _grads("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    return (N_ / n2 + N_ / n1 - 2) * s_all - 2 * (_X(N_, n2) + _X(N_, n1)) * s_lt


def C_term(alpha, beta, n2: int, printed: bool = False) -> float:
    """C_l of Prop. 10 (V1 App. D).  Corrected (notes 7.10): 2 (1 - N/n2) sum_{ij} a_i.b_j + 2 X2 sum_{i != j} a_i.b_j.
    ``printed=True``: the paper's 2 (1 - N/n2) sum_{ij} a_i.b_j + 4 X2 sum_{i<j} a_i.b_j (valid only if symmetric)."""
    a, b = _grads("alpha", alpha), _grads("beta", beta)
    if a.shape != b.shape:
        raise ParameterError(f"alpha and beta must have the same shape, got {a.shape} and {b.shape}")
    N_ = a.shape[0]
    _sizes(N_, n2=n2)
    s_all, s_ne, s_lt = _sums(a, b)
    off = 4 * _X(N_, n2) * s_lt if printed else 2 * _X(N_, n2) * s_ne
    return 2 * (1 - N_ / n2) * s_all + off


def lambda_corrected(beta, n1: int, n2: int) -> float:
    """lambda_l = (N/n2 - N/n1) sum_{ij} b_i.b_j - 2 (X2 - X1) sum_{i<j} b_i.b_j = N^3 (n1 - n2) Gamma^beta/(n1 n2)
    (Theorem 6 (V1) / 2 (V2) corrected; notes 7.9(c))."""
    b = _grads("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    return (N_ / n2 - N_ / n1) * s_all - 2 * (_X(N_, n2) - _X(N_, n1)) * s_lt


def lambda_printed(beta, n1: int, n2: int, literal: bool = False) -> float:
    """lambda_l as printed in Theorem 6 (V1) / Theorem 2 (V2): (N/n1 - N/n2) sum_{ij} b_i.b_j - 2 (X2 - X1)
    sum_{i<j} b_i.b_j (first sum read with b_j); ``literal=True`` reads sum_{ij} b_i.b_i = N sum_i ||b_i||^2."""
    b = _grads("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    first = N_ * float(np.einsum("id,id->", b, b)) if literal else s_all
    return (N_ / n1 - N_ / n2) * first - 2 * (_X(N_, n2) - _X(N_, n1)) * s_lt


def minibatch_noise(alpha, n: int, replace: bool = False) -> float:
    """Exact E||dV||^2 of the minibatch sum estimate of sum_i alpha_i: N (N - n) s^2/n without replacement
    (= (N - n) N^2 Gamma/n, V1 eq. 7) and N (N - 1) s^2/n with replacement (new)."""
    a = _grads("alpha", alpha)
    N_ = a.shape[0]
    _sizes(N_, n=n)
    s2 = sample_var(a)
    return N_ * (N_ - 1) * s2 / n if replace else N_ * (N_ - n) * s2 / n


def vr_noise(alpha, beta, n1: int, n2: int) -> float:
    """Exact E||dV||^2 of the vr estimate (V1 eq. 10-11; z, b independent, without replacement):
    N (N - n2) s^2(alpha - beta)/n2 + N (N - n1) s^2(beta)/n1 (notes section 5 #5)."""
    a, b = _grads("alpha", alpha), _grads("beta", beta)
    N_ = a.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    return N_ * (N_ - n2) * sample_var(a - b) / n2 + N_ * (N_ - n1) * sample_var(b) / n1


# ------------------------------------------------------------------------------------------ enumeration

def _subsets(N_: int, k: int) -> np.ndarray:
    """0/1 indicator rows of all k-subsets of {0..N-1}."""
    out = np.zeros((math.comb(N_, k), N_))
    for r, c in enumerate(itertools.combinations(range(N_), k)):
        out[r, list(c)] = 1.0
    return out


def enumerate_minibatch(alpha, n: int) -> tuple[np.ndarray, float]:
    """(E g, E||g - sum_i alpha_i||^2) of g = (N/n) sum_i alpha_i z_i over all n-subsets (V1 App. B), N <= 16."""
    a = _grads("alpha", alpha)
    N_ = check_int("N", a.shape[0], 2, 16)
    _sizes(N_, n=n)
    Z = _subsets(N_, n)
    g = (N_ / n) * Z @ a
    err = g - a.sum(0)
    return g.mean(0), float(np.mean(np.einsum("rd,rd->r", err, err)))


def vr_estimates(alpha, beta, n1: int, n2: int, shared_batch: bool = False) -> np.ndarray:
    """All values of the vr estimate (N/n2) sum (a_i - b_i) z_i + (N/n1) sum b_i c_i (V1 eq. 10, single sum) over
    every pair (z, c) of an n2-subset and an independent n1-subset, shape (C(N,n2) C(N,n1), d), equally likely.
    ``shared_batch=True`` plants a bug: the correction batch is n2 of the anchor batch's indices (a uniform n2-subset
    of it, as the first n2 of a randomly ordered batch), so the two batches are not independent."""
    a, b = _grads("alpha", alpha), _grads("beta", beta)
    N_ = check_int("N", a.shape[0], 2, 12)
    _sizes(N_, n1=n1, n2=n2)
    Zb = _subsets(N_, n1)
    anchor = (N_ / n1) * Zb @ b
    if shared_batch:
        rows = []
        for r in range(Zb.shape[0]):
            members = np.flatnonzero(Zb[r])
            for sub in itertools.combinations(members, n2):  # the correction batch: n2 of the anchor's n1 indices
                rows.append(anchor[r] + (N_ / n2) * (a[list(sub)] - b[list(sub)]).sum(0))
        return np.array(rows)
    Z = _subsets(N_, n2)
    corr = (N_ / n2) * Z @ (a - b)
    return (corr[:, None, :] + anchor[None, :, :]).reshape(-1, a.shape[1])


def enumerate_vr(alpha, beta, n1: int, n2: int, shared_batch: bool = False) -> tuple[np.ndarray, float]:
    """(E g, E||g - sum_i alpha_i||^2) of the vr estimate by exhaustive enumeration (see :func:`vr_estimates`)."""
    g = vr_estimates(alpha, beta, n1, n2, shared_batch)
    a = _grads("alpha", alpha)
    err = g - a.sum(0)
    return g.mean(0), float(np.mean(np.einsum("rd,rd->r", err, err)))


# ------------------------------------------------------------------------------------------ Gaussian mean model

@dataclass(frozen=True)
class GaussianData:
    """x_i ~ N(theta, sigma^2 I_d), prior N(0, sigma0^2 I_d) (notes section 6): data (N, d), P, mu, S_xx."""

    x: np.ndarray
    sigma: float = 1.0
    sigma0: float = 1.0

    @staticmethod
    def of(data, sigma: float = 1.0, sigma0: float = 1.0) -> GaussianData:
        """Validated constructor (data (N,) or (N, d), N >= 2; sigma, sigma0 > 0)."""
        x = _grads("data", data)
        return GaussianData(x, check_positive("sigma", sigma), check_positive("sigma0", sigma0))

    @property
    def N(self) -> int:
        """Number of data."""
        return int(self.x.shape[0])

    @property
    def P(self) -> float:
        """Posterior precision 1/sigma0^2 + N/sigma^2 (notes 6)."""
        return 1 / self.sigma0**2 + self.N / self.sigma**2

    @property
    def mu(self) -> np.ndarray:
        """Posterior mean (N x_bar/sigma^2)/P (notes 6)."""
        return self.x.sum(0) / self.sigma**2 / self.P

    @property
    def Sxx(self) -> float:
        """Trace scatter sum_i ||x_i - x_bar||^2."""
        c = self.x - self.x.mean(0)
        return float(np.einsum("id,id->", c, c))

    def alpha(self, theta) -> np.ndarray:
        """alpha_i = (x_i - theta)/sigma^2 (notes 6)."""
        return (self.x - np.asarray(theta, dtype=float)) / self.sigma**2


def gaussian_gamma(gd: GaussianData) -> float:
    """Gamma_l = S_xx/(N (N-1) sigma^4) for every theta (notes 6.1)."""
    return gd.Sxx / (gd.N * (gd.N - 1) * gd.sigma**4)


def gaussian_A(gd: GaussianData, n2: int) -> float:
    """A_l = (N - n2) N^2 Gamma/n2 (notes 6.1): SGLD(n2)'s per-step gradient-noise variance."""
    _sizes(gd.N, n2=n2)
    return (gd.N - n2) * gd.N**2 * gaussian_gamma(gd) / n2


def gaussian_lambda(gd: GaussianData, n1: int, n2: int) -> float:
    """Corrected lambda_l = N^3 (n1 - n2) Gamma/(n1 n2) (notes 6.1)."""
    _sizes(gd.N, n1=n1, n2=n2)
    return gd.N**3 * (n1 - n2) * gaussian_gamma(gd) / (n1 * n2)


def gaussian_B(gd: GaussianData, n1: int, n2: int) -> float:
    """B_l = N^2 Gamma [(N - n2)/n2 + (N - n1)/n1] (notes 6.1)."""
    _sizes(gd.N, n1=n1, n2=n2)
    return gd.N**2 * gaussian_gamma(gd) * ((gd.N - n2) / n2 + (gd.N - n1) / n1)


def gaussian_C(gd: GaussianData, n2: int) -> float:
    """Corrected C_l = -2 N^2 Gamma (N - n2)/n2 (notes 6.1)."""
    _sizes(gd.N, n2=n2)
    return -2 * gd.N**2 * gaussian_gamma(gd) * (gd.N - n2) / n2


def gaussian_lambda_printed_stationary(gd: GaussianData, n1: int, n2: int) -> float:
    """E over theta_tilde ~ posterior of the printed lambda_l (first sum with beta_j; notes 6.1):
    -N^2 (n1 - n2)(2 N (N-1) E||x_bar - theta_tilde||^2 - S_xx)/(n1 n2 (N-1) sigma^4),
    E||x_bar - theta_tilde||^2 = d/P + ||x_bar - mu||^2."""
    _sizes(gd.N, n1=n1, n2=n2)
    N_ = gd.N
    d = gd.x.shape[1]
    e2 = d / gd.P + float(np.sum((gd.x.mean(0) - gd.mu) ** 2))
    return -(N_**2) * (n1 - n2) * (2 * N_ * (N_ - 1) * e2 - gd.Sxx) / (n1 * n2 * (N_ - 1) * gd.sigma**4)


def sgld_noise_variance(gd: GaussianData, n: int, replace: bool = False) -> float:
    """Per-step variance (trace) of SGLD's gradient error xi = (N/sigma^2)(x_bar - x_bar_batch):
    N (N - n) S_xx/(n (N - 1) sigma^4) without replacement, N S_xx/(n sigma^4) with (notes 6.2)."""
    _sizes(gd.N, n=n)
    if replace:
        return gd.N * gd.Sxx / (n * gd.sigma**4)
    return gd.N * (gd.N - n) * gd.Sxx / (n * (gd.N - 1) * gd.sigma**4)


def vr_noise_variance(gd: GaussianData, n1: int, n2: int) -> float:
    """Per-step variance of the vr gradient error: exactly A_l - lambda_l = N (N - n1) S_xx/(n1 (N-1) sigma^4),
    independent of n2 (notes 6.1, section 5 #7); it is shared by the m steps of an epoch."""
    _sizes(gd.N, n1=n1, n2=n2)
    return sgld_noise_variance(gd, n1)


def noise_cumulants(gd: GaussianData, n: int, replace: bool = False) -> tuple[float, float, float]:
    """(kappa_2, kappa_3, kappa_4) of the 1-D error of SGLD's gradient estimate, g - grad log pi =
    (N/sigma^2)(x_bar_batch - x_bar) = 2 (B - E B), B the minibatch term of theory.subset_moments (exact, with or
    without replacement; the sign matters for kappa_3)."""
    if gd.x.shape[1] != 1:
        raise ParameterError(f"noise cumulants need 1-D data, got d = {gd.x.shape[1]}")
    _sizes(gd.N, n=n)
    k = sm.minibatch_term_cumulants(gd.x[:, 0], n, replace, gd.sigma, 4)
    return tuple(float(Fraction(2) ** j * k[j - 1]) for j in (2, 3, 4))


# ------------------------------------------------------------------------------------------ exact finite-L MSE

def _chain(gd: GaussianData, h: float) -> float:
    """rho = 1 - h P/2 (workbench h), with 0 < h < 4/P."""
    h = check_positive("h", h)
    if h >= 4 / gd.P:
        raise ParameterError(f"h must satisfy 0 < h < 4/P = {4 / gd.P:.6g} (stability), got {h}")
    return 1 - h * gd.P / 2


def _check_1d(gd: GaussianData) -> None:
    """The MSE formulas are 1-D."""
    if gd.x.shape[1] != 1:
        raise ParameterError(f"the MSE formulas are for d = 1, got d = {gd.x.shape[1]}")


def mse_theta(gd: GaussianData, h: float, L: int, V: float, epoch: int = 1, theta0: float = 0.0) -> float:
    """Exact MSE of (1/L) sum_{k<L} theta_k for phi = theta (notes 6.3, workbench convention; new in this form):

    [e0 (1 - rho^L)/((1 - rho) L)]^2 + (1/L^2) [h sum_j w_j^2 + (h^2/4) V sum_epochs (sum_{j in epoch} w_j)^2],
    w_j = (1 - rho^(L-1-j))/(1 - rho), j = 0..L-2, epochs of length ``epoch`` (1: SGLD, m: vrSGLD with frozen
    anchor noise), V the per-step gradient-noise variance.
    """
    _check_1d(gd)
    _chain(gd, h)
    L = check_int("L", L, 1)
    epoch = check_int("epoch", epoch, 1)
    if V < 0 or not np.isfinite(V):
        raise ParameterError(f"V must be finite and >= 0, got {V}")
    x = h * gd.P / 2  # 1 - rho, without the rounding of 1 - (1 - x)
    e0 = float(theta0) - float(gd.mu[0])
    bias = e0 * float(_one_minus_rho_pow(x, L)) / (x * L)
    j = np.arange(L - 1)
    w = _one_minus_rho_pow(x, L - 1 - j) / x
    s_ep = np.bincount(j // epoch, weights=w) if L > 1 else np.zeros(1)
    return float(bias**2 + (h * np.sum(w * w) + h * h / 4 * V * np.sum(s_ep**2)) / L**2)


def _one_minus_rho_pow(x: float, m) -> np.ndarray:
    """1 - rho^m with rho = 1 - x, via -expm1(m log1p(-x)) (no cancellation for x ~ 0 or m ~ 1e9; 0 < x < 2)."""
    m = np.asarray(m, dtype=np.float64)
    if x == 1.0:
        return np.where(m == 0, 0.0, 1.0)
    if x < 1.0:
        return -np.expm1(m * np.log1p(-x))
    return 1.0 - np.where(np.mod(m, 2) == 1, -1.0, 1.0) * np.exp(m * np.log1p(x - 2.0))


def _sum_w2(x: float, q: int) -> float:
    """sum_{j=1}^q ((1 - rho^j)/x)^2, rho = 1 - x: the closed form [q - 2 rho (1 - rho^q)/x + rho^2 (1 - rho^(2q))/
    (1 - rho^2)]/x^2 cancels badly when q x << 1, so it is evaluated in mpmath with the digits it loses, or, for
    q x < 1e-8, by its expansion sum j^2 - x sum j^2 (j - 1) (relative error (q x)^2 < 1e-16)."""
    import mpmath

    if q == 0:
        return 0.0
    s2 = q * (q + 1) * (2 * q + 1) / 6
    if q * x < 1e-8:
        s3 = (q * (q + 1) / 2) ** 2
        return float(s2 - x * (s3 - s2))
    lost = max(0, math.ceil(-2 * math.log10(min(1.0, q * x))))
    with mpmath.workdps(30 + lost):
        xm = mpmath.mpf(x)
        rho = 1 - xm
        if x < 1.0:
            e1, e2 = -mpmath.expm1(q * mpmath.log1p(-xm)), -mpmath.expm1(2 * q * mpmath.log1p(-xm))
        else:
            e1, e2 = 1 - rho**q, 1 - rho ** (2 * q)
        val = (q - 2 * rho * e1 / xm + rho**2 * e2 / (xm * (2 - xm))) / xm**2
        return float(val)


def mse_theta_sgld(gd: GaussianData, h: float, L: int, n: int, replace: bool = False, theta0: float = 0.0) -> float:
    """Exact MSE for phi = theta of SGLD(n) in closed form (O(1) in L; notes 6.3):
    sum_j w_j^2 = [(L-1) - 2 rho (1 - rho^(L-1))/(1 - rho) + rho^2 (1 - rho^(2(L-1)))/(1 - rho^2)]/(1 - rho)^2,
    evaluated without cancellation (:func:`_sum_w2`; 1 - rho = h P/2 and 1 - rho^L by expm1), for L up to 1e9."""
    _check_1d(gd)
    _chain(gd, h)
    x = h * gd.P / 2
    L = check_int("L", L, 1)
    V = sgld_noise_variance(gd, n, replace)
    e0 = float(theta0) - float(gd.mu[0])
    bias = e0 * float(_one_minus_rho_pow(x, L)) / (x * L)
    sw2 = _sum_w2(x, L - 1)
    return float(bias**2 + (h + h * h / 4 * V) * sw2 / L**2)


def mse_theta2(gd: GaussianData, h: float, L: int, cumulants: tuple[float, float, float], epoch: int = 1,
               theta0: float = 0.0, gaussian_noise: bool = False) -> float:
    """Exact MSE of (1/L) sum_{k<L} theta_k^2 against mu^2 + 1/P (new; extends notes 6.3 beyond the Gaussian-noise
    approximation).  theta_k = m_k + X_k, m_k = mu + rho^k e0, X_k = G_k + sum_ep c_{k,ep} xi_ep (G Gaussian from the
    injected noise; xi_ep iid gradient errors with cumulants kappa_2..4, frozen within epochs), c_{k,ep} =
    (h/2) sum_{j in ep, j < k} rho^(k-1-j).  Cov(theta_k^2, theta_l^2) = 2 C_kl^2 + 4 m_k m_l C_kl
    + 2 m_k cum(X_k, X_l, X_l) + 2 m_l cum(X_k, X_k, X_l) + cum(X_k, X_k, X_l, X_l).
    ``gaussian_noise=True`` drops kappa_3, kappa_4 (the notes' Gaussian-noise approximation).  O(L^2) memory: L <= 6000.
    """
    _check_1d(gd)
    rho = _chain(gd, h)
    L = check_int("L", L, 1, 6000)
    epoch = check_int("epoch", epoch, 1)
    k2, k3, k4 = (float(c) for c in cumulants)
    if gaussian_noise:
        k3 = k4 = 0.0
    mu = float(gd.mu[0])
    e0 = float(theta0) - mu
    k = np.arange(L)
    mk = mu + rho**k * e0
    # injected-noise covariance h D, D_kl = rho^|k-l| (1 - rho^(2 min))/(1 - rho^2)
    kmin = np.minimum.outer(k, k)
    x = h * gd.P / 2
    Cm = h * rho ** np.abs(np.subtract.outer(k, k)) * _one_minus_rho_pow(x, 2 * kmin) / (x * (2 - x))
    n_ep = max(1, -(-(L - 1) // epoch))
    c = np.zeros((L, n_ep))
    for t in range(1, L):
        c[t] = rho * c[t - 1]
        c[t, (t - 1) // epoch] += h / 2
    Cm += k2 * (c @ c.T)
    es2 = float(np.mean(mk**2 + np.diag(Cm)))
    bias = es2 - (mu**2 + 1 / gd.P)
    u = mk @ c
    v = np.sum(c * c, axis=0)
    var = (2 * np.sum(Cm * Cm) + 4 * mk @ Cm @ mk + 4 * k3 * float(u @ v) + k4 * float(v @ v)) / L**2
    return float(bias**2 + var)


@dataclass(frozen=True)
class VRConfig:
    """(n1, n2, m) of Algorithm 1 (Chen et al.), checked: 1 <= n2 < n1 <= N, m >= 1."""

    n1: int
    n2: int
    m: int

    def check(self, N_: int) -> VRConfig:
        """Validate against N."""
        check_int("n1", self.n1, 2, N_)
        check_int("n2", self.n2, 1, self.n1 - 1)
        check_int("m", self.m, 1)
        return self


def vr_mse(gd: GaussianData, h: float, L: int, cfg: VRConfig, phi: str = "theta", theta0: float = 0.0,
           paper_implied: bool = False, gaussian_noise: bool = False) -> float:
    """Exact MSE of vrSGLD (Algorithm 1 with SGLD, workbench convention) for phi in {'theta', 'theta2'}: SGLD whose
    gradient error is the n1-anchor error, frozen for m steps (notes 6.2-6.3).  ``paper_implied=True`` treats the
    errors as independent across steps (epoch 1), the assumption implicit in Theorem 6/2's use of Lemma 1."""
    cfg.check(gd.N)
    ep = 1 if paper_implied else cfg.m
    if phi == "theta":
        return mse_theta(gd, h, L, vr_noise_variance(gd, cfg.n1, cfg.n2), ep, theta0)
    if phi == "theta2":
        return mse_theta2(gd, h, L, noise_cumulants(gd, cfg.n1), ep, theta0, gaussian_noise)
    raise ParameterError(f"phi must be 'theta' or 'theta2', got {phi!r}")


def sgld_mse(gd: GaussianData, h: float, L: int, n: int, phi: str = "theta", theta0: float = 0.0,
             replace: bool = False) -> float:
    """Exact MSE of SGLD(n) for phi in {'theta', 'theta2'} (workbench convention).  phi = theta: closed form
    (:func:`mse_theta_sgld`); theta^2: theory.toy_finite_time (exact, closed form in L; Vollmer et al. App. 10)."""
    if phi == "theta":
        return mse_theta_sgld(gd, h, L, n, replace, theta0)
    if phi == "theta2":
        _check_1d(gd)
        from .toy_finite_time import toy_finite_time

        ch = toy_finite_time("sgld", gd.x[:, 0], n, replace=replace, h=h, sigma_x=gd.sigma, sigma_theta=gd.sigma0,
                             theta0=theta0)
        return float(ch.mse2(L))
    raise ParameterError(f"phi must be 'theta' or 'theta2', got {phi!r}")


__all__ = [
    "A_term", "B_term", "C_term", "GaussianData", "VRConfig", "enumerate_minibatch", "enumerate_vr", "gamma",
    "gaussian_A", "gaussian_B", "gaussian_C", "gaussian_gamma", "gaussian_lambda", "gaussian_lambda_printed_stationary",
    "lambda_corrected", "lambda_printed", "minibatch_noise", "mse_theta", "mse_theta2", "mse_theta_sgld",
    "noise_cumulants", "sample_var", "sgld_mse", "sgld_noise_variance", "vr_estimates", "vr_mse", "vr_noise",
    "vr_noise_variance",
]
