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
    """K_n with E|xi|^2 = K_n sum_i |G_i - G_bar|^2, derived from the indicator moments (sympy).

    xi = sum_i (N c_i / n - 1) G_i with c_i the count of datum i in S; E c_i = n/N and
    E c_i^2 = n/N + n(n-1)/N^2 (with), n/N (without); E c_i c_j = n(n-1)/N^2 (with), n(n-1)/(N(N-1)) (without).
    E xi xi^T = a sum_i G_i G_i^T + b sum_{i != j} G_i G_j^T; this vanishes for constant G iff
    a + (N-1) b = 0, and then equals (a - b) sum_i (G_i - G_bar)(G_i - G_bar)^T, so K = a - b.
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
    """K_n = N/n (with replacement) or N(N-n)/(n(N-1)) (without), lambdified from :func:`k_factor_sympy`."""
    N = check_int("N", N, 2)
    n = check_int("n", n, 1, N)
    return float(_k_num(bool(replace))(N, n))


def per_datum_rows(name: str, G) -> np.ndarray:
    """``G`` as an (N, d) float array of per-datum vectors (gradients, features; a (N,) array is read as d = 1).

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
    """Cov of (N/n) sum_{i in S} G_i - sum_i G_i: K_n sum_i (G_i - G_bar)(G_i - G_bar)^T, shape (d, d)."""
    G = per_datum_rows("G", G)
    Gc = G - G.mean(axis=0)
    return k_factor(G.shape[0], n, replace) * (Gc.T @ Gc)


def enumerate_noise(G, n: int, replace: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of xi by exhaustive enumeration of all minibatches (small N; with replacement: all N^n
    ordered tuples, without: all C(N, n) subsets)."""
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
    """(A (N, d, d), r (N, d)): A_i = z_i z_i^T / sigma^2, r_i = z_i y_i / sigma^2."""
    Z = per_datum_rows("Z", Z)
    y = check_finite_array("y", y, ndim=(1,))
    s2 = check_positive("sigma", sigma) ** 2
    return np.einsum("ni,nj->nij", Z, Z) / s2, Z * (y / s2)[:, None]


def linreg_grads(Z, y, sigma: float, theta) -> np.ndarray:
    """Per-datum gradients g_i(theta) = r_i - A_i theta, shape (N, d)."""
    A, r = linreg_parts(Z, y, sigma)
    return r - A @ np.asarray(theta, dtype=np.float64)


def sgld_noise_cov_linreg(Z, y, sigma: float, theta, n: int, replace: bool = False) -> np.ndarray:
    """SGLD: K sum_i (c_i - B_i theta)(c_i - B_i theta)^T (docs/papers/baker.md sec. 2)."""
    return minibatch_noise_cov(linreg_grads(Z, y, sigma, theta), n, replace)


def cv_noise_cov_linreg(Z, sigma: float, theta, theta_hat, n: int, replace: bool = False) -> np.ndarray:
    """SGLD-CV: K sum_i B_i delta delta^T B_i, delta = theta - theta_hat (docs/papers/baker.md sec. 2)."""
    Z = per_datum_rows("Z", Z)
    A, _ = linreg_parts(Z, np.zeros(Z.shape[0]), sigma)
    delta = np.asarray(theta, dtype=np.float64) - np.asarray(theta_hat, dtype=np.float64)
    return minibatch_noise_cov(-(A @ delta), n, replace)


def svrg_noise_cov_linreg(Z, sigma: float, theta, theta_tilde, n: int) -> np.ndarray:
    """SVRG-LD (full-data anchor theta_tilde, Dubey et al. 2016): the CV formula with theta_hat = theta_tilde."""
    return cv_noise_cov_linreg(Z, sigma, theta, theta_tilde, n, False)


def saga_noise_cov(grads_at_theta, table, n: int) -> np.ndarray:
    """SAGA at a table state: K sum_i (d_i - d_bar)(d_i - d_bar)^T, d_i = g_i(theta) - table_i (without repl.)."""
    g = per_datum_rows("grads_at_theta", grads_at_theta)
    t = per_datum_rows("table", table)
    if g.shape != t.shape:
        raise ParameterError(f"table must have the shape of grads_at_theta {g.shape}, got {t.shape}")
    return minibatch_noise_cov(g - t, n, False)


def saga_noise_cov_linreg(Z, y, sigma: float, theta, anchors, n: int) -> np.ndarray:
    """SAGA on linear regression with table_i = g_i(alpha_i): d_i = -A_i (theta - alpha_i); anchors (N, d)."""
    A, _ = linreg_parts(Z, y, sigma)
    al = per_datum_rows("anchors", anchors)
    d = -np.einsum("nij,nj->ni", A, np.asarray(theta, dtype=np.float64)[None, :] - al)
    return minibatch_noise_cov(d, n, False)


def sgld_noise_cov_location(x, sigma: float, n: int, replace: bool = False) -> np.ndarray:
    """Gaussian location model: K sigma^{-4} sum_i (x_i - x_bar)(x_i - x_bar)^T, independent of theta."""
    x = per_datum_rows("x", x)
    return minibatch_noise_cov(x, n, replace) / check_positive("sigma", sigma) ** 4


def cv_noise_cov_location(d: int) -> np.ndarray:
    """Gaussian location model: g_i(theta) - g_i(theta_hat) = -(theta - theta_hat)/sigma^2 for every i, so 0."""
    return np.zeros((d, d))


def saga_noise_cov_location(anchors, sigma: float, n: int) -> np.ndarray:
    """Gaussian location model with anchors alpha_i: K sigma^{-4} sum (alpha_i - alpha_bar)(.)^T (docs/papers/baker.md
    sec. 2)."""
    return minibatch_noise_cov(per_datum_rows("anchors", anchors), n, False) / check_positive("sigma", sigma) ** 4


# ------------------------------------------------------------------------------------------ N-scaling
def expected_sgld_trace_gaussian_design(N: int, n: int, d: int, sigma: float, w2: float,
                                        replace: bool = False) -> float:
    """E_data tr Cov_SGLD = K (N-1)[(d+1)|w|^2 + d sigma^2]/sigma^4, z_i ~ N(0, I_d), w = theta_true - theta (new)."""
    return k_factor(N, n, replace) * (N - 1) * ((d + 1) * w2 + d * sigma**2) / sigma**4


def expected_cv_trace_gaussian_design(N: int, n: int, d: int, sigma: float, delta2: float,
                                      replace: bool = False) -> float:
    """E_data tr Cov_CV = K (N-1)(d+1)|theta - theta_hat|^2/sigma^4, z_i ~ N(0, I_d) (new, by Isserlis)."""
    return k_factor(N, n, replace) * (N - 1) * (d + 1) * delta2 / sigma**4



@cache
def scalar_noise_sympy(replace: bool = False) -> dict[str, sp.Expr]:
    """E[eps^2 | theta] on a d = 1 linear regression as sympy expressions in (N, n, theta, theta_hat, mu) and the data
    sums Scc = sum c_i^2, Scb = sum c_i B_i, Sbb = sum B_i^2 (c_i = g_i(mu) - g_bar(mu), B_i = A_i - A_bar):
    SGLD K (Scc - 2 Scb u + Sbb u^2), u = theta - mu (since g_i(theta) - g_bar(theta) = c_i - B_i u);
    SGLD-CV / SVRG K Sbb (theta - theta_hat)^2; location model: Sbb = Scb = 0 (docs/papers/baker.md sec. 2).
    Also the leading orders as N -> oo with theta - mu = a/sqrt(N), theta_hat - mu = b/sqrt(N), Scc = N s_c,
    Scb = N s_cb, Sbb = N s_b (per-datum moments fixed): "sgld_order" = lim n E/N^2 = s_c, "cv_order" =
    lim n E/N = s_b (a - b)^2 (docs/papers/baker.md sec. 2: Theta(N^2/n) vs O(N/n))."""
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
    """Numeric E[eps^2 | theta] from :func:`scalar_noise_sympy` (lambdified); method "sgld" or "cv"."""
    if method not in ("sgld", "cv"):
        raise ParameterError(f"method must be 'sgld' or 'cv', got {method!r}")
    ex = scalar_noise_sympy(bool(replace))[method]
    syms = (Nsym, nsym) + tuple(sp.symbols("theta theta_hat mu S_cc S_cb S_bb", real=True))
    return float(sp.lambdify(syms, ex, "math")(N, n, theta, theta_hat, mu, Scc, Scb, Sbb))

def dubey_bounds(sigma_bound: float, D: float, N: int, n: int, dist2: float) -> tuple[float, float]:
    """The paper's eqs. (6)-(7) quoted from Dubey et al.: (2 N^2 sigma^2 / n, D^2 N^2 E|theta - theta_hat|^2 / n)."""
    return 2 * N * N * sigma_bound**2 / n, D * D * N * N * dist2 / n


__all__ = [
    "cv_noise_cov_linreg", "cv_noise_cov_location", "dubey_bounds", "enumerate_noise",
    "expected_cv_trace_gaussian_design", "expected_sgld_trace_gaussian_design", "k_factor", "k_factor_sympy",
    "linreg_grads", "linreg_parts", "minibatch_noise_cov", "per_datum_rows", "saga_noise_cov", "saga_noise_cov_linreg",
    "saga_noise_cov_location", "scalar_noise_sympy", "scalar_noise_var",
    "sgld_noise_cov_linreg", "sgld_noise_cov_location", "svrg_noise_cov_linreg",
]
