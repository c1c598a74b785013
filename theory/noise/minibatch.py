"""Exact gradient-noise moments of SGLD, SGLD-CV, SAGA and SVRG estimators (Baker, Fearnhead, Fox & Nemeth 2019).

General formula (docs/papers/baker.md sec. 2; the SRSWOR computation in the proof of Theorem 1, A.2.1):
for per-datum vectors G_1..G_N and a minibatch S of size n, xi = (N/n) sum_{i in S} G_i - sum_i G_i has mean 0 and

    Cov(xi) = K_n sum_i (G_i - G_bar)(G_i - G_bar)^T,   K_n = N/n (with replacement), N(N-n)/(n(N-1)) (without).

:func:`k_factor_sympy` derives K_n from the inclusion-indicator moments E Z_i = n/N, E Z_i Z_j = n(n-1)/(N(N-1))
(without) or the multinomial moments (with). The estimators differ only in G_i (the prior term cancels):
SGLD G_i = g_i(theta); SGLD-CV G_i = g_i(theta) - g_i(theta_hat) (the paper's "(4.1)"); SAGA G_i = g_i(theta) -
table_i (Dubey et al. 2016); SVRG G_i = g_i(theta) - g_i(theta_tilde) (as CV with the anchor).

Models (closed forms, typed from the paper, independent of ``simulate``):
* Gaussian location x_i ~ N(theta, sigma^2 I): g_i = (x_i - theta)/sigma^2; SGLD Cov = K sigma^{-4} sum (x_i - x_bar)
  (x_i - x_bar)^T, independent of theta; CV Cov = 0 for every theta, theta_hat (docs/papers/baker.md sec. 2).
* Linear regression y_i ~ N(z_i^T theta, sigma^2): A_i = z_i z_i^T/sigma^2, r_i = z_i y_i/sigma^2, g_i = r_i - A_i
  theta; SGLD Cov = K sum (c_i - B_i theta)(.)^T with c_i = r_i - r_bar, B_i = A_i - A_bar; CV Cov = K sum B_i
  delta delta^T B_i, delta = theta - theta_hat (docs/papers/baker.md sec. 2).
* Data-averaged (Gaussian design z ~ N(0, I_d), new, by Isserlis): E tr Cov_SGLD = K (N-1)[(d+1)|w|^2 + d sigma^2]
  / sigma^4 with w = theta_true - theta, E tr Cov_CV = K (N-1)(d+1)|delta|^2 / sigma^4; so at |theta - theta_hat| =
  O(N^{-1/2}) SGLD is Theta(N^2/n) and CV O(N/n) (docs/papers/baker.md sec. 2).
"""

from __future__ import annotations

from functools import cache

import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive

Nsym, nsym = sp.symbols("N n", positive=True, integer=True)


@cache
def k_factor_sympy(replace: bool) -> sp.Expr:
    """The factor K_n of the minibatch noise, ``E|xi|^2 = K_n sum_i |G_i - G_bar|^2``, derived with sympy.

    xi = sum_i (N c_i / n - 1) G_i with c_i the count of datum i in S; E c_i = n/N and
    E c_i^2 = n/N + n(n-1)/N^2 (with), n/N (without); E c_i c_j = n(n-1)/N^2 (with), n(n-1)/(N(N-1)) (without).
    E xi xi^T = a sum_i G_i G_i^T + b sum_{i != j} G_i G_j^T; this vanishes for constant G iff
    a + (N-1) b = 0, and then equals (a - b) sum_i (G_i - G_bar)(G_i - G_bar)^T, so K = a - b (cached).

    Parameters
    ----------
    replace : bool
        With replacement (K = N/n) or without (K = N(N - n)/(n(N - 1))).

    Returns
    -------
    sympy.Expr
        In the symbols N, n.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), the SRSWOR computation of Appendix A.2.1 (:doc:`/papers/baker`, sec. 2).
    """
    N, n = Nsym, nsym
    Ec = n / N
    if replace:
        Ec2, Ecc = n / N + n * (n - 1) / N**2, n * (n - 1) / N**2
    else:
        Ec2, Ecc = n / N, n * (n - 1) / (N * (N - 1))
    a = (N / n) ** 2 * Ec2 - 2 * (N / n) * Ec + 1  # E (N c_i/n - 1)^2
    b = (N / n) ** 2 * Ecc - 2 * (N / n) * Ec + 1  # E (N c_i/n - 1)(N c_j/n - 1)
    if sp.simplify(a + (N - 1) * b) != 0:  # pragma: no cover - sanity of the derivation
        raise AssertionError("constant G must give zero noise")
    return sp.factor(sp.simplify(a - b))


@cache
def _k_num(replace: bool):
    return sp.lambdify((Nsym, nsym), k_factor_sympy(replace), "numpy")


def k_factor(N: int, n: int, replace: bool = False) -> float:
    """K_n = N/n (with replacement) or N(N - n)/(n(N - 1)) (without), lambdified from :func:`k_factor_sympy`.

    Parameters
    ----------
    N : int
        The number of data, >= 2.
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
        When N < 2 or n is not in 1..N.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), the SRSWOR computation of Appendix A.2.1 (:doc:`/papers/baker`, sec. 2).
    """
    N = check_int("N", N, 2)
    n = check_int("n", n, 1, N)
    return float(_k_num(bool(replace))(N, n))


def per_datum_rows(name: str, G) -> np.ndarray:
    """``G`` as an (N, d) float array of per-datum vectors (gradients, features; a (N,) array is read as d = 1).

    Parameters
    ----------
    name : str
        The parameter's name, for the message.
    G : array_like, shape (N, d) or (N,)
        The vectors.

    Returns
    -------
    numpy.ndarray, shape (N, d)

    Raises
    ------
    ParameterError
        Naming ``name``, unless it holds N >= 2 finite rows.
    """
    a = check_finite_array(name, G, ndim=(1, 2))
    if a.ndim == 1:
        a = a[:, None]
    if a.shape[0] < 2:
        raise ParameterError(f"{name} must hold N >= 2 per-datum vectors, got N = {a.shape[0]}")
    return a


def minibatch_noise_cov(G, n: int, replace: bool = False) -> np.ndarray:
    """The covariance of the minibatch error (N/n) sum_{i in S} G_i - sum_i G_i: K_n sum_i (G_i - G_bar)(G_i - G_bar)^T.

    Parameters
    ----------
    G : array_like, shape (N, d) or (N,)
        The per-datum vectors (gradients, or their differences for a control variate).
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Raises
    ------
    ParameterError
        When G is not N >= 2 finite rows or n is out of range.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), the SRSWOR computation of Appendix A.2.1 (:doc:`/papers/baker`, sec. 2).
    """
    G = per_datum_rows("G", G)
    Gc = G - G.mean(axis=0)
    return k_factor(G.shape[0], n, replace) * (Gc.T @ Gc)


def enumerate_noise(G, n: int, replace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The mean and covariance of the minibatch error xi by exhaustive enumeration of all minibatches (small N).

    With replacement all N^n ordered tuples, without all C(N, n) subsets: an independent check of
    :func:`minibatch_noise_cov`.

    Parameters
    ----------
    G : array_like, shape (N, d) or (N,)
        The per-datum vectors.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    mean : numpy.ndarray, shape (d,)
    cov : numpy.ndarray, shape (d, d)

    Raises
    ------
    ParameterError
        When there are more than 2,000,000 minibatches to enumerate.
    """
    import itertools

    G = per_datum_rows("G", G)
    N = G.shape[0]
    n = check_int("n", n, 1, N)
    it = itertools.product(range(N), repeat=n) if replace else itertools.combinations(range(N), n)
    S = np.array(list(it))
    if S.shape[0] > 2_000_000:
        raise ParameterError("too many minibatches to enumerate; use N <= 12")
    xi = G[S].sum(axis=1) * (N / n) - G.sum(axis=0)
    return xi.mean(axis=0), xi.T @ xi / S.shape[0]


# ------------------------------------------------------------------------------------------ models
def linreg_parts(Z, y, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The per-datum parts of linear regression's gradients: A_i = z_i z_i^T / sigma^2, r_i = z_i y_i / sigma^2.

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design.
    y : array_like, shape (N,)
        The responses.
    sigma : float
        The noise's standard deviation, > 0.

    Returns
    -------
    A : numpy.ndarray, shape (N, d, d)
    r : numpy.ndarray, shape (N, d)

    References
    ----------
    :doc:`/papers/baker`, sec. 2.
    """
    Z = per_datum_rows("Z", Z)
    y = check_finite_array("y", y, ndim=(1,))
    s2 = check_positive("sigma", sigma) ** 2
    return np.einsum("ni,nj->nij", Z, Z) / s2, Z * (y / s2)[:, None]


def linreg_grads(Z, y, sigma: float, theta) -> np.ndarray:
    """Linear regression's per-datum gradients g_i(theta) = r_i - A_i theta.

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design.
    y : array_like, shape (N,)
        The responses.
    sigma : float
        The noise's standard deviation, > 0.
    theta : array_like, shape (d,)
        The point.

    Returns
    -------
    numpy.ndarray, shape (N, d)
    """
    A, r = linreg_parts(Z, y, sigma)
    return r - A @ np.asarray(theta, dtype=np.float64)


def sgld_noise_cov_linreg(Z, y, sigma: float, theta, n: int, replace: bool = False) -> np.ndarray:
    """SGLD's gradient-noise covariance on linear regression: K_n sum_i (c_i - B_i theta)(c_i - B_i theta)^T.

    c_i = r_i - r_bar, B_i = A_i - A_bar.

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design.
    y : array_like, shape (N,)
        The responses.
    sigma : float
        The noise's standard deviation, > 0.
    theta : array_like, shape (d,)
        The point.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019) (:doc:`/papers/baker`, sec. 2).
    """
    return minibatch_noise_cov(linreg_grads(Z, y, sigma, theta), n, replace)


def cv_noise_cov_linreg(Z, sigma: float, theta, theta_hat, n: int, replace: bool = False) -> np.ndarray:
    """SGLD-CV's noise covariance on linear regression: K_n sum_i B_i delta delta^T B_i, delta = theta - theta_hat.

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design.
    sigma : float
        The noise's standard deviation, > 0.
    theta : array_like, shape (d,)
        The point.
    theta_hat : array_like, shape (d,)
        The control variate's centre.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), the estimate "(4.1)" (:doc:`/papers/baker`, sec. 2).
    """
    Z = per_datum_rows("Z", Z)
    A, _ = linreg_parts(Z, np.zeros(Z.shape[0]), sigma)
    delta = np.asarray(theta, dtype=np.float64) - np.asarray(theta_hat, dtype=np.float64)
    return minibatch_noise_cov(-(A @ delta), n, replace)


def svrg_noise_cov_linreg(Z, sigma: float, theta, theta_tilde, n: int) -> np.ndarray:
    """SVRG-LD's gradient-noise covariance on linear regression: the CV formula with theta_hat = theta_tilde.

    The full-data anchor theta_tilde of Dubey et al. (2016); minibatches without replacement.

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design.
    sigma : float
        The noise's standard deviation, > 0.
    theta : array_like, shape (d,)
        The point.
    theta_tilde : array_like, shape (d,)
        The anchor.
    n : int
        The minibatch size.

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    return cv_noise_cov_linreg(Z, sigma, theta, theta_tilde, n, False)


def saga_noise_cov(grads_at_theta, table, n: int) -> np.ndarray:
    """SAGA's gradient-noise covariance at a table state: K_n sum_i (d_i - d_bar)(d_i - d_bar)^T, d_i = g_i - table_i.

    Minibatches without replacement (SAGA's bookkeeping needs it).

    Parameters
    ----------
    grads_at_theta : array_like, shape (N, d)
        The per-datum gradients g_i(theta).
    table : array_like, shape (N, d)
        The table's entries.
    n : int
        The minibatch size.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    Raises
    ------
    ParameterError
        When the two arrays differ in shape.

    References
    ----------
    Dubey et al. (2016); Baker, Fearnhead, Fox & Nemeth (2019), Section 4.4 (:doc:`/papers/baker`, secs. 1.4, 2).
    """
    g = per_datum_rows("grads_at_theta", grads_at_theta)
    t = per_datum_rows("table", table)
    if g.shape != t.shape:
        raise ParameterError(f"table must have the shape of grads_at_theta {g.shape}, got {t.shape}")
    return minibatch_noise_cov(g - t, n, False)


def saga_noise_cov_linreg(Z, y, sigma: float, theta, anchors, n: int) -> np.ndarray:
    """SAGA's gradient-noise covariance on linear regression with table_i = g_i(alpha_i): d_i = -A_i (theta - alpha_i).

    Parameters
    ----------
    Z : array_like, shape (N, d) or (N,)
        The design.
    y : array_like, shape (N,)
        The responses.
    sigma : float
        The noise's standard deviation, > 0.
    theta : array_like, shape (d,)
        The point.
    anchors : array_like, shape (N, d)
        alpha_i, each datum's anchor.
    n : int
        The minibatch size.

    Returns
    -------
    numpy.ndarray, shape (d, d)
    """
    A, _ = linreg_parts(Z, y, sigma)
    al = per_datum_rows("anchors", anchors)
    d = -np.einsum("nij,nj->ni", A, np.asarray(theta, dtype=np.float64)[None, :] - al)
    return minibatch_noise_cov(d, n, False)


def sgld_noise_cov_location(x, sigma: float, n: int, replace: bool = False) -> np.ndarray:
    """SGLD's gradient-noise covariance on the Gaussian location model: K_n sigma^{-4} sum_i (x_i - x_bar)(.)^T.

    Independent of theta.

    Parameters
    ----------
    x : array_like, shape (N, d) or (N,)
        The data.
    sigma : float
        The data's standard deviation, > 0.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    :doc:`/papers/baker`, sec. 2.
    """
    x = per_datum_rows("x", x)
    return minibatch_noise_cov(x, n, replace) / check_positive("sigma", sigma) ** 4


def cv_noise_cov_location(d: int) -> np.ndarray:
    """SGLD-CV's gradient-noise covariance on the Gaussian location model: zero.

    g_i(theta) - g_i(theta_hat) = -(theta - theta_hat)/sigma^2 for every i, so the minibatch error vanishes.

    Parameters
    ----------
    d : int
        The dimension.

    Returns
    -------
    numpy.ndarray, shape (d, d)
        Zeros.

    References
    ----------
    :doc:`/papers/baker`, sec. 2.
    """
    return np.zeros((d, d))


def saga_noise_cov_location(anchors, sigma: float, n: int) -> np.ndarray:
    """SAGA's gradient-noise covariance on the Gaussian location model with anchors alpha_i.

    K_n sigma^{-4} sum_i (alpha_i - alpha_bar)(alpha_i - alpha_bar)^T (without replacement).

    Parameters
    ----------
    anchors : array_like, shape (N, d) or (N,)
        alpha_i.
    sigma : float
        The data's standard deviation, > 0.
    n : int
        The minibatch size.

    Returns
    -------
    numpy.ndarray, shape (d, d)

    References
    ----------
    :doc:`/papers/baker`, sec. 2.
    """
    return minibatch_noise_cov(per_datum_rows("anchors", anchors), n, False) / check_positive("sigma", sigma) ** 4


# ------------------------------------------------------------------------------------------ N-scaling
def expected_sgld_trace_gaussian_design(N: int, n: int, d: int, sigma: float, w2: float,
                                        replace: bool = False) -> float:
    """E_data tr Cov_SGLD = K (N - 1)[(d + 1) w2 + d sigma^2]/sigma^4 for a Gaussian design z_i ~ N(0, I_d) (new).

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size.
    d : int
        The dimension.
    sigma : float
        The noise's standard deviation.
    w2 : float
        ``|theta_true - theta|^2``.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    float

    References
    ----------
    New, by Isserlis' theorem (:doc:`/papers/baker`, sec. 2).
    """
    return k_factor(N, n, replace) * (N - 1) * ((d + 1) * w2 + d * sigma**2) / sigma**4


def expected_cv_trace_gaussian_design(N: int, n: int, d: int, sigma: float, delta2: float,
                                      replace: bool = False) -> float:
    """E_data tr Cov_CV = K (N - 1)(d + 1) delta2/sigma^4 for a Gaussian design z_i ~ N(0, I_d) (new).

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size.
    d : int
        The dimension.
    sigma : float
        The noise's standard deviation.
    delta2 : float
        ``|theta - theta_hat|^2``.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    float

    References
    ----------
    New, by Isserlis' theorem (:doc:`/papers/baker`, sec. 2).
    """
    return k_factor(N, n, replace) * (N - 1) * (d + 1) * delta2 / sigma**4



@cache
def scalar_noise_sympy(replace: bool = False) -> dict[str, sp.Expr]:
    """E[eps^2 | theta] on a d = 1 linear regression as sympy expressions in (N, n, theta, theta_hat, mu) and the data
    sums Scc = sum c_i^2, Scb = sum c_i B_i, Sbb = sum B_i^2 (c_i = g_i(mu) - g_bar(mu), B_i = A_i - A_bar):
    SGLD K (Scc - 2 Scb u + Sbb u^2), u = theta - mu (since g_i(theta) - g_bar(theta) = c_i - B_i u);
    SGLD-CV / SVRG K Sbb (theta - theta_hat)^2; location model: Sbb = Scb = 0 (docs/papers/baker.md sec. 2).
    Also the leading orders as N -> oo with theta - mu = a/sqrt(N), theta_hat - mu = b/sqrt(N), Scc = N s_c,
    Scb = N s_cb, Sbb = N s_b (per-datum moments fixed): "sgld_order" = lim n E/N^2 = s_c, "cv_order" =
    lim n E/N = s_b (a - b)^2 (Theta(N^2/n) against O(N/n); cached).

    Parameters
    ----------
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    dict of str to sympy.Expr
        "sgld", "cv", "sgld_order", "cv_order".

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 1's scaling (:doc:`/papers/baker`, sec. 2).
    """
    N, n = Nsym, nsym
    th, thh, mu, Scc, Scb, Sbb = sp.symbols("theta theta_hat mu S_cc S_cb S_bb", real=True)
    a, b, sc, scb, sb = sp.symbols("a b s_c s_cb s_b", real=True)
    K = k_factor_sympy(replace)
    u = th - mu
    sgld = K * (Scc - 2 * Scb * u + Sbb * u**2)
    cv = K * Sbb * (th - thh) ** 2
    sub = {th: mu + a / sp.sqrt(N), thh: mu + b / sp.sqrt(N), Scc: N * sc, Scb: N * scb, Sbb: N * sb}
    return {"sgld": sgld, "cv": cv,
            "sgld_order": sp.simplify(sp.limit(sp.simplify(n * sgld.subs(sub) / N**2), N, sp.oo)),
            "cv_order": sp.factor(sp.limit(sp.simplify(n * cv.subs(sub) / N), N, sp.oo))}


def scalar_noise_var(method: str, N: int, n: int, theta: float, theta_hat: float, mu: float, Scc: float, Scb: float,
                     Sbb: float, replace: bool = False) -> float:
    """E[eps^2 | theta] on a d = 1 linear regression, numerically from :func:`scalar_noise_sympy`.

    Parameters
    ----------
    method : {"sgld", "cv"}
        The estimator.
    N : int
        The number of data.
    n : int
        The minibatch size.
    theta : float
        The point.
    theta_hat : float
        The control variate's centre.
    mu : float
        The posterior mean.
    Scc : float
        sum_i c_i^2.
    Scb : float
        sum_i c_i B_i.
    Sbb : float
        sum_i B_i^2.
    replace : bool, default False
        With replacement or without.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When method is not "sgld" or "cv".
    """
    if method not in ("sgld", "cv"):
        raise ParameterError(f"method must be 'sgld' or 'cv', got {method!r}")
    ex = scalar_noise_sympy(bool(replace))[method]
    syms = (Nsym, nsym) + tuple(sp.symbols("theta theta_hat mu S_cc S_cb S_bb", real=True))
    return float(sp.lambdify(syms, ex, "math")(N, n, theta, theta_hat, mu, Scc, Scb, Sbb))

def dubey_bounds(sigma_bound: float, D: float, N: int, n: int, dist2: float) -> tuple[float, float]:
    """Baker et al.'s eqs. (6)-(7), quoted from Dubey et al.: the bounds on SGLD's and SGLD-CV's noise.

    Parameters
    ----------
    sigma_bound : float
        sigma, the bound on the per-datum gradients' spread.
    D : float
        The Lipschitz constant of the per-datum gradients.
    N : int
        The number of data.
    n : int
        The minibatch size.
    dist2 : float
        ``E|theta - theta_hat|^2``.

    Returns
    -------
    sgld : float
        2 N^2 sigma^2 / n.
    cv : float
        D^2 N^2 dist2 / n.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), eqs. (6)-(7) (:doc:`/papers/baker`, sec. 2).
    """
    return 2 * N * N * sigma_bound**2 / n, D * D * N * N * dist2 / n


__all__ = [
    "cv_noise_cov_linreg", "cv_noise_cov_location", "dubey_bounds", "enumerate_noise",
    "expected_cv_trace_gaussian_design", "expected_sgld_trace_gaussian_design", "k_factor", "k_factor_sympy",
    "linreg_grads", "linreg_parts", "minibatch_noise_cov", "per_datum_rows", "saga_noise_cov", "saga_noise_cov_linreg",
    "saga_noise_cov_location", "scalar_noise_sympy", "scalar_noise_var",
    "sgld_noise_cov_linreg", "sgld_noise_cov_location", "svrg_noise_cov_linreg",
]
