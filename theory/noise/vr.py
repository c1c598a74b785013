"""The gradient noise of Chen, Wang, Zhang, Su & Carin's variance-reduced SG-MCMC (vrSG-MCMC) for given per-datum
gradients: the quantities of Lemma 2, Proposition 10 and Theorem 6 (Gamma, A, B, C, lambda), exact enumeration of the
estimators' moments, and their values on the Gaussian mean model (:class:`GaussianData`) (docs/papers/chen.md
secs. 3-6).

Numbering: V1 = arXiv version, V2 = SCIS 2019 (docs/papers/chen.md sec. 1).  alpha_i = grad log p(d_i | theta_l)
(current state), beta_i = grad log p(d_i | theta_tilde) (anchor); arrays of shape (N, d).  s^2(v) =
sum_i ||v_i - v_bar||^2 / (N - 1) and X_k = N (N - n_k)/(n_k (N - 1)). The exact MSE of the chains these noises drive
is :mod:`theory.chains.chen_mse`; the forms as printed are :mod:`theory.printed.chen`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from simulate.validation import ParameterError, check_int, check_positive
from theory.noise import subset_moments as sm
from theory.noise.minibatch import per_datum_rows


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
    """``s^2(v) = sum_i ||v_i - v_bar||^2 / (N - 1)``, the trace of the unbiased sample covariance.

    Parameters
    ----------
    v : array_like, shape (N, d) or (N,)
        Per-datum vectors, N >= 2.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), sec. 3 of the digest's notation (:doc:`/papers/chen`).
    """
    a = per_datum_rows("v", v)
    c = a - a.mean(0)
    return float(np.einsum("id,id->", c, c) / (a.shape[0] - 1))


def gamma(alpha) -> float:
    """Gamma_l = (1/N^2) sum_{ij} a_i.a_j - sum_{i != j} a_i.a_j/(N(N-1)), which equals s^2(alpha)/N.

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 2 (V1 and V2) (:doc:`/papers/chen`).
    """
    a = per_datum_rows("alpha", alpha)
    N_ = a.shape[0]
    s_all, s_ne, _ = _sums(a, a)
    return s_all / N_**2 - s_ne / (N_ * (N_ - 1))


def _X(N_: int, k: int) -> float:
    """X_k = N (N - n_k) / (n_k (N - 1))."""
    return N_ * (N_ - k) / (k * (N_ - 1))


def A_term(alpha, n2: int) -> float:
    """A_l = (N/n2 - 1) sum_{ij} a_i.a_j - 2 X2 sum_{i<j} a_i.a_j.

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Proposition 10 (V1 App. D), Theorem 6 (V1) / Theorem 2 (V2)
    (:doc:`/papers/chen`).
    """
    a = per_datum_rows("alpha", alpha)
    N_ = a.shape[0]
    _sizes(N_, n2=n2)
    s_all, _, s_lt = _sums(a, a)
    return (N_ / n2 - 1) * s_all - 2 * _X(N_, n2) * s_lt


def B_term(beta, n1: int, n2: int) -> float:
    """B_l = (N/n2 + N/n1 - 2) sum_{ij} b_i.b_j - 2 (X2 + X1) sum_{i<j} b_i.b_j.

    Parameters
    ----------
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Proposition 10 (V1 App. D) (:doc:`/papers/chen`).
    """
    b = per_datum_rows("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    return (N_ / n2 + N_ / n1 - 2) * s_all - 2 * (_X(N_, n2) + _X(N_, n1)) * s_lt


def C_term(alpha, beta, n2: int, printed: bool = False) -> float:
    """C_l, corrected: 2 (1 - N/n2) sum_{ij} a_i.b_j + 2 X2 sum_{i != j} a_i.b_j.

    ``printed=True``: the paper's 2 (1 - N/n2) sum_{ij} a_i.b_j + 4 X2 sum_{i<j} a_i.b_j, valid only when
    a_i.b_j is symmetric in (i, j) (an erratum).

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.
    printed : bool, default False
        The form as printed.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When alpha and beta differ in shape or n2 is out of range.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Proposition 10 (V1 App. D), corrected; digest secs. 3 and 6
    (:doc:`/papers/chen`).
    """
    a, b = per_datum_rows("alpha", alpha), per_datum_rows("beta", beta)
    if a.shape != b.shape:
        raise ParameterError(f"alpha and beta must have the same shape, got {a.shape} and {b.shape}")
    N_ = a.shape[0]
    _sizes(N_, n2=n2)
    s_all, s_ne, s_lt = _sums(a, b)
    off = 4 * _X(N_, n2) * s_lt if printed else 2 * _X(N_, n2) * s_ne
    return 2 * (1 - N_ / n2) * s_all + off


def lambda_corrected(beta, n1: int, n2: int) -> float:
    """lambda_l, corrected: (N/n2 - N/n1) sum_{ij} b_i.b_j - 2 (X2 - X1) sum_{i<j} b_i.b_j.

    It equals N^3 (n1 - n2) Gamma^beta/(n1 n2); :func:`theory.printed.chen.lambda_printed` is the form as printed.

    Parameters
    ----------
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Theorem 6 (V1) / Theorem 2 (V2), corrected; digest sec. 3
    (:doc:`/papers/chen`).
    """
    b = per_datum_rows("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    return (N_ / n2 - N_ / n1) * s_all - 2 * (_X(N_, n2) - _X(N_, n1)) * s_lt


def minibatch_noise(alpha, n: int, replace: bool = False) -> float:
    """The exact ``E||dV||^2`` of the minibatch estimate of sum_i alpha_i.

    N (N - n) s^2/n without replacement (= (N - n) N^2 Gamma/n, V1 eq. (7)), N (N - 1) s^2/n with replacement (new).

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 eq. (7) (:doc:`/papers/chen`).
    """
    a = per_datum_rows("alpha", alpha)
    N_ = a.shape[0]
    _sizes(N_, n=n)
    s2 = sample_var(a)
    return N_ * (N_ - 1) * s2 / n if replace else N_ * (N_ - n) * s2 / n


def vr_noise(alpha, beta, n1: int, n2: int) -> float:
    """The exact ``E||dV||^2`` of the vr estimate: N (N - n2) s^2(alpha - beta)/n2 + N (N - n1) s^2(beta)/n1.

    The two minibatches (z, b) are independent and drawn without replacement.

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 eqs. (10)-(11); digest sec. 3 (:doc:`/papers/chen`).
    """
    a, b = per_datum_rows("alpha", alpha), per_datum_rows("beta", beta)
    N_ = a.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    return N_ * (N_ - n2) * sample_var(a - b) / n2 + N_ * (N_ - n1) * sample_var(b) / n1


def _subsets(N_: int, k: int) -> np.ndarray:
    """0/1 indicator rows of all k-subsets of {0..N-1}."""
    out = np.zeros((math.comb(N_, k), N_))
    for r, c in enumerate(itertools.combinations(range(N_), k)):
        out[r, list(c)] = 1.0
    return out


def enumerate_minibatch(alpha, n: int) -> tuple[np.ndarray, float]:
    """The mean and ``E||g - sum_i alpha_i||^2`` of g = (N/n) sum_i alpha_i z_i, by enumerating every n-subset.

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
        2 <= N <= 16.
    n : int
        The minibatch size.

    Returns
    -------
    mean : numpy.ndarray, shape (d,)
    mse : float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 Appendix B (:doc:`/papers/chen`).
    """
    a = per_datum_rows("alpha", alpha)
    N_ = check_int("N", a.shape[0], 2, 16)
    _sizes(N_, n=n)
    Z = _subsets(N_, n)
    g = (N_ / n) * Z @ a
    err = g - a.sum(0)
    return g.mean(0), float(np.mean(np.einsum("rd,rd->r", err, err)))


def vr_estimates(alpha, beta, n1: int, n2: int, shared_batch: bool = False) -> np.ndarray:
    """Every value of the vr estimate (N/n2) sum (a_i - b_i) z_i + (N/n1) sum b_i c_i, all equally likely.

    Over every pair (z, c) of an n2-subset and an independent n1-subset (V1 eq. (10), read as a single sum).
    ``shared_batch=True`` plants a bug: the correction batch is n2 of the anchor batch's indices (a uniform n2-subset
    of it, as the first n2 of a randomly ordered batch), so the two batches are not independent.

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
        2 <= N <= 12.
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.
    shared_batch : bool, default False
        The planted bug.

    Returns
    -------
    numpy.ndarray
        (C(N, n2) C(N, n1), d); with the bug, (C(N, n1) C(n1, n2), d).

    Raises
    ------
    ParameterError
        When a minibatch size is out of range or the arrays are not N >= 2 finite rows.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 eq. (10) (:doc:`/papers/chen`).
    """
    a, b = per_datum_rows("alpha", alpha), per_datum_rows("beta", beta)
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
    """The mean and ``E||g - sum_i alpha_i||^2`` of the vr estimate, by exhaustive enumeration (:func:`vr_estimates`).

    Parameters
    ----------
    alpha : array_like, shape (N, d) or (N,)
        alpha_i = grad log p(d_i | theta_l), the per-datum gradients at the current state.
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.
    shared_batch : bool, default False
        The planted bug of :func:`vr_estimates`.

    Returns
    -------
    mean : numpy.ndarray, shape (d,)
    mse : float
    """
    g = vr_estimates(alpha, beta, n1, n2, shared_batch)
    a = per_datum_rows("alpha", alpha)
    err = g - a.sum(0)
    return g.mean(0), float(np.mean(np.einsum("rd,rd->r", err, err)))


@dataclass(frozen=True)
class GaussianData:
    """The Gaussian mean model x_i ~ N(theta, sigma^2 I_d), prior N(0, sigma0^2 I_d), in Chen et al.'s quantities.

    Build with :meth:`of` (validated).

    Parameters
    ----------
    x : numpy.ndarray, shape (N, d)
        The data.
    sigma : float, default 1.0
        The data's standard deviation.
    sigma0 : float, default 1.0
        The prior's standard deviation.

    References
    ----------
    :doc:`/papers/chen`, sec. 5.
    """

    x: np.ndarray
    sigma: float = 1.0
    sigma0: float = 1.0

    @staticmethod
    def of(data, sigma: float = 1.0, sigma0: float = 1.0) -> GaussianData:
        """The validated constructor.

        Parameters
        ----------
        data : array_like, shape (N, d) or (N,)
            N >= 2 finite rows.
        sigma : float, default 1.0
            > 0.
        sigma0 : float, default 1.0
            > 0.

        Returns
        -------
        GaussianData

        Raises
        ------
        ParameterError
            When the data are not N >= 2 finite rows or a scale is not positive.
        """
        x = per_datum_rows("data", data)
        return GaussianData(x, check_positive("sigma", sigma), check_positive("sigma0", sigma0))

    @property
    def N(self) -> int:
        """Number of data."""
        return int(self.x.shape[0])

    @property
    def P(self) -> float:
        """Posterior precision 1/sigma0^2 + N/sigma^2 (docs/papers/chen.md sec. 5)."""
        return 1 / self.sigma0**2 + self.N / self.sigma**2

    @property
    def mu(self) -> np.ndarray:
        """Posterior mean (N x_bar/sigma^2)/P (docs/papers/chen.md sec. 5)."""
        return self.x.sum(0) / self.sigma**2 / self.P

    @property
    def Sxx(self) -> float:
        """Trace scatter sum_i ||x_i - x_bar||^2."""
        c = self.x - self.x.mean(0)
        return float(np.einsum("id,id->", c, c))

    def alpha(self, theta) -> np.ndarray:
        """The per-datum gradients alpha_i = (x_i - theta)/sigma^2.

        Parameters
        ----------
        theta : array_like, shape (d,)
            The point.

        Returns
        -------
        numpy.ndarray, shape (N, d)
        """
        return (self.x - np.asarray(theta, dtype=float)) / self.sigma**2


def gaussian_gamma(gd: GaussianData) -> float:
    """Gamma_l on the Gaussian mean model: S_xx/(N (N - 1) sigma^4) at every theta.

    Parameters
    ----------
    gd : GaussianData
        The data.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 2; digest sec. 5 (:doc:`/papers/chen`).
    """
    return gd.Sxx / (gd.N * (gd.N - 1) * gd.sigma**4)


def gaussian_A(gd: GaussianData, n2: int) -> float:
    """A_l on the Gaussian mean model: (N - n2) N^2 Gamma/n2, SGLD(n2)'s per-step gradient-noise variance.

    Parameters
    ----------
    gd : GaussianData
        The data.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), digest sec. 5 (:doc:`/papers/chen`).
    """
    _sizes(gd.N, n2=n2)
    return (gd.N - n2) * gd.N**2 * gaussian_gamma(gd) / n2


def gaussian_lambda(gd: GaussianData, n1: int, n2: int) -> float:
    """lambda_l on the Gaussian mean model, corrected: N^3 (n1 - n2) Gamma/(n1 n2).

    Parameters
    ----------
    gd : GaussianData
        The data.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), digest sec. 5 (:doc:`/papers/chen`).
    """
    _sizes(gd.N, n1=n1, n2=n2)
    return gd.N**3 * (n1 - n2) * gaussian_gamma(gd) / (n1 * n2)


def gaussian_B(gd: GaussianData, n1: int, n2: int) -> float:
    """B_l on the Gaussian mean model: N^2 Gamma [(N - n2)/n2 + (N - n1)/n1].

    Parameters
    ----------
    gd : GaussianData
        The data.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), digest sec. 5 (:doc:`/papers/chen`).
    """
    _sizes(gd.N, n1=n1, n2=n2)
    return gd.N**2 * gaussian_gamma(gd) * ((gd.N - n2) / n2 + (gd.N - n1) / n1)


def gaussian_C(gd: GaussianData, n2: int) -> float:
    """C_l on the Gaussian mean model, corrected: -2 N^2 Gamma (N - n2)/n2.

    Parameters
    ----------
    gd : GaussianData
        The data.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), digest sec. 5 (:doc:`/papers/chen`).
    """
    _sizes(gd.N, n2=n2)
    return -2 * gd.N**2 * gaussian_gamma(gd) * (gd.N - n2) / n2


def sgld_noise_variance(gd: GaussianData, n: int, replace: bool = False) -> float:
    """The per-step variance (trace) of SGLD's gradient error xi = (N/sigma^2)(x_bar - x_bar_batch).

    N (N - n) S_xx/(n (N - 1) sigma^4) without replacement, N S_xx/(n sigma^4) with.

    Parameters
    ----------
    gd : GaussianData
        The data.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), digest sec. 5 (:doc:`/papers/chen`).
    """
    _sizes(gd.N, n=n)
    if replace:
        return gd.N * gd.Sxx / (n * gd.sigma**4)
    return gd.N * (gd.N - n) * gd.Sxx / (n * (gd.N - 1) * gd.sigma**4)


def vr_noise_variance(gd: GaussianData, n1: int, n2: int) -> float:
    """The per-step variance of the vr gradient error: exactly A_l - lambda_l = N (N - n1) S_xx/(n1 (N - 1) sigma^4).

    Independent of n2; it is shared (frozen) by the m steps of an epoch.

    Parameters
    ----------
    gd : GaussianData
        The data.
    n1 : int
        The anchor minibatch size, 1 <= n1 <= N.
    n2 : int
        The minibatch size of each step, 1 <= n2 <= N.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), digest sec. 5 (:doc:`/papers/chen`).
    """
    _sizes(gd.N, n1=n1, n2=n2)
    return sgld_noise_variance(gd, n1)


def noise_cumulants(gd: GaussianData, n: int, replace: bool = False) -> tuple[float, float, float]:
    """The cumulants (kappa_2, kappa_3, kappa_4) of the 1-D error of SGLD's gradient estimate, exactly.

    g - grad log pi = (N/sigma^2)(x_bar_batch - x_bar) = 2 (B - E B), B the minibatch term of
    :mod:`theory.noise.subset_moments` (the sign matters for kappa_3).

    Parameters
    ----------
    gd : GaussianData
        The data.
        1-D data.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    tuple of float

    Raises
    ------
    ParameterError
        When the data are not 1-D or n is out of range.
    """
    if gd.x.shape[1] != 1:
        raise ParameterError(f"noise cumulants need 1-D data, got d = {gd.x.shape[1]}")
    _sizes(gd.N, n=n)
    k = sm.minibatch_term_cumulants(gd.x[:, 0], n, replace, gd.sigma, 4)
    return tuple(float(Fraction(2) ** j * k[j - 1]) for j in (2, 3, 4))


__all__ = ["A_term", "B_term", "C_term", "GaussianData", "enumerate_minibatch", "enumerate_vr", "gamma",
           "gaussian_A", "gaussian_B", "gaussian_C", "gaussian_gamma", "gaussian_lambda", "lambda_corrected",
           "minibatch_noise", "noise_cumulants", "sample_var", "sgld_noise_variance", "vr_estimates", "vr_noise",
           "vr_noise_variance"]
