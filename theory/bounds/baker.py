"""Theorems 1-3 of Baker, Fearnhead, Fox & Nemeth (2019) made exact on linear-Gaussian models (docs/papers/baker.md
secs. 2-4).

Workbench convention theta' = theta + (h/2) g + sqrt(h) xi. On linear regression (posterior N(mu, P^{-1}), per-datum
gradients g_i = r_i - A_i theta) SGLD and SGLD-CV are u' = F u + (h/2) eps(theta) + sqrt(h) xi with u = theta - mu,
F = I - h P/2, and a gradient error eps of conditional covariance quadratic in theta
(:func:`theory.chains.linear_regression.noise_parts`); their stationary laws are the exact engine's
(``theory.exact_law(sampler)``).

Theorem 1 (strong error vs the coupled diffusion, phi = sqrt(N)(theta - mu), phi-step eps, theta-step h = eps/N):
the exact moment recursion of docs/papers/baker.md sec. 4 for d = 1 (linear regression; the location model is z_i = 1):
a = 1 - h p/2, b = exp(-h p/2), m_u' = a m_u, m_v' = b m_v, S_uu' = a^2 S_uu + (h^2/4) E Var(eps | theta) + h,
S_vv' = b^2 S_vv + (1 - b^2)/p, S_uv' = a b S_uv + (2/p)(1 - b); strong error N (S_uu + S_vv - 2 S_uv).
Theorem 2's key step (21) and Theorem 3's Gaussian identities (R_hat = R/(1 + v/p)) are below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp

from simulate.models.linear_regression import LinearRegressionModel
from simulate.validation import ParameterError, check_finite_array, check_int, check_positive
from theory.chains.linear_regression import LINREG_METHODS
from theory.noise.minibatch import k_factor, linreg_parts


# ------------------------------------------------------------------------------------------ Theorem 1 (d = 1)
@dataclass(frozen=True)
class Scalar1D:
    """The sufficient sums of a 1-d linear regression for the Theorem 1 recursion.

    c_i = g_i(mu) - g_bar(mu), B_i = A_i - A_bar (module docstring).

    Parameters
    ----------
    N : int
        The number of data.
    p : float
        The posterior precision.
    mu : float
        The posterior mean.
    Scc : float
        sum_i c_i^2.
    Scb : float
        sum_i c_i B_i.
    Sbb : float
        sum_i B_i^2 (0 on the location model).
    """

    N: int
    p: float
    mu: float
    Scc: float
    Scb: float
    Sbb: float

    @classmethod
    def linreg(cls, z, y, sigma: float, sigma0: float) -> Scalar1D:
        """The sums of the regression y_i ~ N(z_i theta, sigma^2), theta ~ N(0, sigma0^2).

        Its posterior is :class:`simulate.LinearRegressionModel`'s.

        Parameters
        ----------
        z : array_like, shape (N,)
            The design.
        y : array_like, shape (N,)
            The responses.
        sigma : float
            The noise's standard deviation.
        sigma0 : float
            The prior's standard deviation.

        Returns
        -------
        Scalar1D
        """
        model = LinearRegressionModel(check_finite_array("z", z, ndim=(1,))[:, None], y, sigma, sigma0)
        A, r = linreg_parts(model.Z, model.y, model.sigma)
        A, r = A[:, 0, 0], r[:, 0]
        p, mu = float(model.precision[0, 0]), float(model.posterior_mean[0])
        g = r - A * mu
        c = g - g.mean()
        B = A - A.mean()
        return cls(z.shape[0], float(p), float(mu), float(c @ c), float(c @ B), float(B @ B))

    @classmethod
    def location(cls, x, sigma: float, sigma0: float) -> Scalar1D:
        """The sums of the Gaussian location model x_i ~ N(theta, sigma^2): the regression with z_i = 1.

        Parameters
        ----------
        x : array_like, shape (N,)
            The data.
        sigma : float
            The data's standard deviation.
        sigma0 : float
            The prior's standard deviation.

        Returns
        -------
        Scalar1D
        """
        x = check_finite_array("x", x, ndim=(1,))
        return cls.linreg(np.ones_like(x), x, sigma, sigma0)

    def noise_var(self, method: str, K: float, m_u: float, S_uu: float, e: float) -> float:
        """E Var(eps | theta) given E u = m_u and E u^2 = S_uu, u = theta - mu.

        Parameters
        ----------
        method : {"sgld", "cv"}
            The estimator.
        K : float
            The minibatch factor K_n.
        m_u : float
            E u.
        S_uu : float
            E u^2.
        e : float
            theta_hat - mu (the control variate's offset; ignored for SGLD).

        Returns
        -------
        float
        """
        if method == "sgld":
            return K * (self.Scc - 2 * self.Scb * m_u + self.Sbb * S_uu)
        return K * self.Sbb * (S_uu - 2 * e * m_u + e * e)


def strong_error(s: Scalar1D, n: int, eps: float, T: int, phi0: float, method: str = "sgld",
                 phi_hat: float = 0.0, replace: bool = False) -> float:
    """The exact strong error ``E|phi_T - phi_bar_T|^2`` of SGLD or SGLD-CV against the diffusion (8).

    Both driven by the same Brownian motion and started at phi_0, in phi = sqrt(N)(theta - mu) with phi-step eps
    (theta-step h = eps/N); theta_hat = mu + phi_hat/sqrt(N) (Assumption 3 when phi_hat = O(1)). The recursion is
    the module docstring's.

    Parameters
    ----------
    s : Scalar1D
        The regression's sufficient sums.
    n : int
        The minibatch size.
    eps : float
        The phi-step, > 0.
    T : int
        The number of steps, >= 1.
    phi0 : float
        The start, in phi.
    method : {"sgld", "cv"}, default "sgld"
        The estimator.
    phi_hat : float, default 0.0
        The control variate's centre, in phi.
    replace : bool, default False
        Minibatches with replacement or without.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When method is unknown or T, eps is out of range.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 1 and Appendix A.2.1, made exact (:doc:`/papers/baker`, secs. 3-4).
    """
    if method not in LINREG_METHODS:
        raise ParameterError(f"method must be one of {LINREG_METHODS}, got {method!r}")
    T = check_int("T", T, 1)
    eps = check_positive("eps", eps)
    N = s.N
    h = eps / N
    a, b = 1.0 - 0.5 * h * s.p, math.exp(-0.5 * h * s.p)
    K = k_factor(N, n, replace)
    e = phi_hat / math.sqrt(N)
    m_u = m_v = phi0 / math.sqrt(N)
    S_uu = S_vv = S_uv = m_u * m_u
    for _ in range(T):
        nv = s.noise_var(method, K, m_u, S_uu, e)
        S_uu = a * a * S_uu + 0.25 * h * h * nv + h
        S_vv = b * b * S_vv + (1.0 - b * b) / s.p
        S_uv = a * b * S_uv + (2.0 / s.p) * (1.0 - b)
        m_u, m_v = a * m_u, b * m_v
    return N * (S_uu + S_vv - 2.0 * S_uv)


def n_required(s: Scalar1D, nu: float, eps: float, T: int, phi0: float, method: str = "sgld",
               phi_hat: float = 0.0) -> int | None:
    """The smallest n (without replacement) with :func:`strong_error` <= nu, by bisection (the error falls with n).

    Parameters
    ----------
    s : Scalar1D
        The regression's sufficient sums.
    nu : float
        The tolerance, > 0.
    eps : float
        The phi-step.
    T : int
        The number of steps.
    phi0 : float
        The start, in phi.
    method : {"sgld", "cv"}, default "sgld"
        The estimator.
    phi_hat : float, default 0.0
        The control variate's centre, in phi.

    Returns
    -------
    int or None
        None when even n = N (the discretisation error A) exceeds nu.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 1 and Appendix A.2.1, made exact (:doc:`/papers/baker`, secs. 3-4).
    """
    nu = check_positive("nu", nu)
    f = lambda n: strong_error(s, n, eps, T, phi0, method, phi_hat)  # noqa: E731
    if f(s.N) > nu:
        return None
    lo, hi = 1, s.N
    if f(1) <= nu:
        return 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if f(mid) <= nu:
            hi = mid
        else:
            lo = mid
    return hi


@cache
def _nreq_location_sympy() -> tuple[sp.Expr, tuple[sp.Symbol, ...]]:
    """Location model: error = A + J (N - n)/n <= nu  <=>  n >= J N/(nu - A + J) (docs/papers/baker.md sec. 4), solved
    by sympy."""
    A, J, nu, N, n = sp.symbols("A J nu N n", positive=True)
    sol = sp.solve(sp.Eq(A + J * (N - n) / n, nu), n)
    return sp.simplify(sol[0]), (A, J, nu, N)


def location_nreq_closed_form(s: Scalar1D, nu: float, eps: float, T: int, phi0: float) -> tuple[int | None, float,
                                                                                                     float]:
    """The exact n_req = ceil(J N / (nu - A + J)) on the location model (Sbb = 0), with A and J.

    A is the strong error at n = N (the discretisation), J = N (h^2/4) (N/(N-1)) Scc (1 - a^{2T})/(1 - a^2).

    Parameters
    ----------
    s : Scalar1D
        The regression's sufficient sums.
        A location model.
    nu : float
        The tolerance.
    eps : float
        The phi-step.
    T : int
        The number of steps.
    phi0 : float
        The start, in phi.

    Returns
    -------
    n_req : int or None
        None when nu <= A.
    A : float
    J : float

    Raises
    ------
    ParameterError
        When the sums are not a location model's.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 1 and Appendix A.2.1, made exact (:doc:`/papers/baker`, secs. 3-4).
    """
    if s.Sbb > 1e-12 * max(1.0, s.Scc):
        raise ParameterError("location_nreq_closed_form needs a location model (all A_i equal)")
    N = s.N
    h = eps / N
    a = 1.0 - 0.5 * h * s.p
    A = strong_error(s, N, eps, T, phi0, "sgld")
    J = N * 0.25 * h * h * (N / (N - 1)) * s.Scc * (1 - a ** (2 * T)) / (1 - a * a)
    if nu <= A:
        return None, A, J
    expr, syms = _nreq_location_sympy()
    val = float(sp.lambdify(syms, expr, "math")(A, J, nu, N))
    n = max(1, math.ceil(val - 1e-9 * val))
    return min(n, N), A, J


def paper_nreq_lower_bound(s: Scalar1D, nu: float, eps: float, printed: bool = False) -> float:
    """Theorem 1's lower bound n >= c W d N/(nu + c W d), d = 1, W = sum_i (g_i(mu) - g_bar(mu))^2/(N - 1).

    W is Assumption 2's constant at mu; c = eps^2/4 (corrected: the noise enters as (eps/2) delta) or eps^2 (as
    printed).

    Parameters
    ----------
    s : Scalar1D
        The regression's sufficient sums.
    nu : float
        The tolerance.
    eps : float
        The phi-step.
    printed : bool, default False
        c = eps^2 as printed.

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 1 and Appendix A.2.1, made exact (:doc:`/papers/baker`, secs. 3-4).
    """
    W = s.Scc / (s.N - 1)
    c = eps * eps if printed else 0.25 * eps * eps
    return c * W * s.N / (nu + c * W)


# ------------------------------------------------------------------------------------------ Theorem 2, step (21)
def saga_bound_21(A_max: float, N: int, n: int, theta, anchors) -> float:
    """The right side of Theorem 2's step (21) in theta-space, (N/n) D^2 sum_i ``|theta - alpha_i|^2``.

    ``E|xi|^2 <= (N/n) D^2 sum_i |theta - alpha_i|^2`` with D = max_i ``||A_i||`` (in phi-space
    ``E|delta|^2 <= D^2/(N n) sum_i |phi - alpha_i^phi|^2``, the same after rescaling).

    Parameters
    ----------
    A_max : float
        D.
    N : int
        The number of data.
    n : int
        The minibatch size.
    theta : array_like, shape (d,)
        The point.
    anchors : array_like, shape (N, d)
        SAGA's anchors alpha_i.

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 2, step (21) (:doc:`/papers/baker`, sec. 3).
    """
    al = np.asarray(anchors, dtype=np.float64)
    diff = np.asarray(theta, dtype=np.float64)[None, :] - al.reshape(al.shape[0], -1)
    return N / n * A_max**2 * float((diff * diff).sum())


# ------------------------------------------------------------------------------------------ Theorem 3 (ZV)
@cache
def zv_gaussian_sympy() -> dict[str, sp.Expr]:
    """ZV on a 1-d Gaussian posterior N(mu, 1/p) with f = theta^2 and z_hat = -(1/2)(grad log pi + eps),
    Var(eps) = v, E[eps | theta] = 0 (docs/papers/baker.md sec. 4; Theorem 3 exact). Returns sympy expressions:
    Vf = Var f, C = Cov(z_hat, f), Vz = Var z_hat, a_star = -C/Vz, var_after = Var(f + a* z_hat),
    var_printed = Var(f - a* z_hat) (the paper's sign), R = C^2/Vz at v = 0 (absolute, Mira Thm 6.1),
    R_hat = C^2/Vz, ratio = Vf/var_after (cached).

    Returns
    -------
    dict of str to sympy.Expr
        In mu, p, v.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 3, eq. (12), made exact (:doc:`/papers/baker`, secs. 3-4);
    Mira, Solgi & Imparato (2013), Theorem 6.1.
    """
    mu, v, a = sp.symbols("mu v a", real=True)
    p = sp.symbols("p", positive=True)
    t, e = sp.symbols("t e", real=True)  # theta - mu ~ N(0, 1/p); eps ~ (0, v), uncorrelated with functions of t
    # moments of t: E t = 0, E t^2 = 1/p, E t^3 = 0, E t^4 = 3/p^2
    f = (mu + t) ** 2
    zhat = sp.Rational(1, 2) * (p * t) - sp.Rational(1, 2) * e  # -(1/2)(-p t + e)

    def E(expr):
        poly = sp.Poly(sp.expand(expr), t, e)
        mom_t = {0: 1, 1: 0, 2: 1 / p, 3: 0, 4: 3 / p**2}
        mom_e = {0: 1, 1: 0, 2: v}
        return sp.simplify(sum(c * mom_t[i] * mom_e[j] for (i, j), c in poly.terms()))

    Ef, Ez = E(f), E(zhat)
    Vf = E((f - Ef) ** 2)
    C = E((zhat - Ez) * (f - Ef))
    Vz = E((zhat - Ez) ** 2)
    var_a = sp.expand(Vf + 2 * a * C + a * a * Vz)
    a_star = sp.solve(sp.diff(var_a, a), a)[0]
    out = {"Vf": Vf, "C": C, "Vz": Vz, "a_star": sp.simplify(a_star),
           "var_after": sp.simplify(var_a.subs(a, a_star)), "var_printed": sp.simplify(var_a.subs(a, -a_star)),
           "R_hat": sp.simplify(C**2 / Vz), "R": sp.simplify((C**2 / Vz).subs(v, 0))}
    out["ratio"] = sp.simplify(Vf / out["var_after"])
    return out


def zv_gaussian(name: str, mu: float, p: float, v: float) -> float:
    """One entry of :func:`zv_gaussian_sympy`, numerically.

    Parameters
    ----------
    name : str
        "Vf", "C", "Vz", "a_star", "var_after", "var_printed", "R_hat", "R" or "ratio".
    mu : float
        The posterior mean.
    p : float
        The posterior precision.
    v : float
        E Var(eps | theta).

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When name is unknown.
    """
    ex = zv_gaussian_sympy()
    if name not in ex:
        raise ParameterError(f"name must be one of {sorted(ex)}, got {name!r}")
    syms = (sp.Symbol("mu", real=True), sp.Symbol("p", positive=True), sp.Symbol("v", real=True))
    fn = sp.lambdify(syms, ex[name], "math")
    return float(fn(mu, p, v))


def expected_noise_var_1d(s: Scalar1D, n: int, method: str, phi_hat: float = 0.0) -> float:
    """Theorem 3's noise term v = E_{theta ~ posterior} Var(eps | theta) for d = 1.

    SGLD: K (Scc + Sbb/p); CV: K Sbb (1/p + e^2), e = phi_hat/sqrt(N); minibatches without replacement.

    Parameters
    ----------
    s : Scalar1D
        The regression's sufficient sums.
    n : int
        The minibatch size.
    method : {"sgld", "cv"}
        The estimator.
    phi_hat : float, default 0.0
        The control variate's centre, in phi.

    Returns
    -------
    float

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Theorem 3 (:doc:`/papers/baker`, sec. 3).
    """
    K = k_factor(s.N, n, False)
    e = phi_hat / math.sqrt(s.N)
    return s.noise_var(method, K, 0.0, 1.0 / s.p, e)


__all__ = ["Scalar1D", "expected_noise_var_1d", "location_nreq_closed_form", "n_required", "paper_nreq_lower_bound",
           "saga_bound_21", "strong_error", "zv_gaussian", "zv_gaussian_sympy"]
