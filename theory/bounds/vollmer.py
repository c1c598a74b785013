"""Vollmer, Zygalakis & Teh (2016), Sections 5-6 on the Gaussian toy model: the constants of Theorem 5.2
(JMLR Theorem 9), the MSE-optimal step size, the large-N scalings of Section 6.2, inequality (70), and the
minimal computational cost of Section 6.1 (eq. 69), and the same constraint turned around: the smallest exact MSE2
any (n, r < 1) reaches at a given cost (:func:`cheapest_mse2`, new; it judges the costs read off Figure 3).

Theorem 5.2 states MSE <= C (h^2 + 1/(M h)) for the time average of M states. On the toy model both constants are
explicit (new, derived here): for phi = theta^2 and h -> 0 at fixed data and n,

    MSE2(M, h) = c1^2 h^2 + C_v / (M h) + o(h^2) + o(1/(M h)),
    c1  = leading bias coefficient (1/4 for Euler and mSGLD, 1/4 + Var(B)/(2A) for SGLD; eqs. 19, 21),
    C_v = lim_{h->0} h sigma_as^2 = (8 mu^2 sigma_p^2 + 2 sigma_p^4) / A = 4 mu^2/A^2 + 1/(2 A^3)  (all methods),

with sigma_as^2 = lim_M M Var(S2) (docs/papers/vollmer.md sec. 4.4). Minimising over h gives (Remark 8)
h* = (C_v / (2 c1^2 M))^(1/3) and MSE* = 3 c1^2 h*^2, i.e. h* ~ M^(-1/3), MSE* ~ M^(-2/3).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np
import sympy as sp
from scipy import optimize

from simulate.validation import ParameterError, check_int, check_positive
from theory.symbols import EB, VB, A, h
from theory.toy import moments as tm
from theory.toy.finite_time import ToyFiniteTime, toy_finite_time

_mu, _k3, _k4, _M, _r, _N, _n, _p, _vx = sp.symbols("mu kappa_3 kappa_4 M r N n p VarX", positive=True)


@cache
def asymptotic_variance_expr(method: str) -> sp.Expr:
    """sigma_as^2 = lim_M M Var(S2) as a sympy expression in A, h, mu, V_B, kappa_3(B), kappa_4(B) (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    sympy.Expr

    References
    ----------
    :doc:`/papers/vollmer`, sec. 4.4 (new).
    """
    a, _, q = tm.one_step(method)
    c2 = q
    c3 = h**3 * _k3 if method != "euler" else 0
    c4 = h**4 * _k4 if method != "euler" else 0
    s2 = c2 / (1 - a**2)
    m3 = c3 / (1 - a**3)
    m4 = c4 / (1 - a**4) + 3 * s2**2
    return (4 * _mu**2 * s2 + 4 * _mu * m3 + m4 - s2**2 + 4 * _mu * (2 * _mu * s2 + m3) * a / (1 - a)
            + 2 * (2 * _mu * m3 + m4 - s2**2) * a**2 / (1 - a**2))


@cache
def theorem52_constants(method: str) -> tuple[sp.Expr, sp.Expr]:
    """The constants (c1, C_v) with MSE2 = c1^2 h^2 + C_v/(M h) + lower order on the toy (new; cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    c1 : sympy.Expr
    C_v : sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 9 (arXiv Theorem 5.2) and Remark 8, made explicit on the toy (new;
    :doc:`/papers/vollmer`, secs. 4.4 and 6).
    """
    c1 = tm.toy_leading_bias_coefficient(method)
    cv = sp.simplify(sp.limit(sp.simplify(h * asymptotic_variance_expr(method)), h, 0))
    return c1, cv


@cache
def optimal_step_expr(method: str) -> tuple[sp.Expr, sp.Expr]:
    """(h*, MSE*) minimising c1^2 h^2 + C_v/(M h) over h: h* ~ M^(-1/3), MSE* ~ M^(-2/3) (cached).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.

    Returns
    -------
    h_star : sympy.Expr
    mse_star : sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 9 (arXiv Theorem 5.2) and Remark 8, made explicit on the toy (new;
    :doc:`/papers/vollmer`, secs. 4.4 and 6).
    """
    c1, cv = theorem52_constants(method)
    f = c1**2 * h**2 + cv / (_M * h)
    (hstar,) = [s for s in sp.solve(sp.diff(f, h), h) if s.is_positive is not False and s.is_real is not False]
    return sp.simplify(hstar), sp.simplify(f.subs(h, hstar))


@dataclass(frozen=True)
class OptimalStep:
    """The exact MSE-optimal r = A h for M averaged states, beside the asymptotic prediction of Remark 8.

    Parameters
    ----------
    M : int
        The number of states averaged.
    r_exact : float
        The exact optimum of MSE2(M) over r.
    mse_exact : float
        MSE2 there.
    r_asymptotic : float
        A h* from :func:`optimal_step_expr`.
    mse_asymptotic : float
        MSE* from :func:`optimal_step_expr`.
    """

    M: int
    r_exact: float
    mse_exact: float
    r_asymptotic: float
    mse_asymptotic: float


def optimal_step(method: str, data, n: int | None, M: int, replace: bool = False, theta0: float = 0.0,
                 r_bounds: tuple[float, float] = (1e-6, 1.0), dps: int = 40) -> OptimalStep:
    """The exact MSE2(M) minimised over r = A h in ``r_bounds`` (bounded Brent on log r), beside h*.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    data : array_like, shape (N,)
        The toy's data.
    n : int or None
        The subset size (None for Euler).
    M : int
        The number of states averaged, >= 1.
    replace : bool, default False
        Subsets with replacement or without.
    theta0 : float, default 0.0
        The deterministic start.
    r_bounds : tuple of float, default (1e-6, 1.0)
        0 < lo < hi < 2.
    dps : int, default 40
        Decimal digits of the exact MSE.

    Returns
    -------
    OptimalStep

    Raises
    ------
    ParameterError
        When M or r_bounds is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 9 (arXiv Theorem 5.2) and Remark 8, made explicit on the toy (new;
    :doc:`/papers/vollmer`, secs. 4.4 and 6).
    """
    M = check_int("M", M, 1)
    lo, hi = r_bounds
    if not 0 < lo < hi <= 1.999:
        raise ParameterError(f"r_bounds must satisfy 0 < lo < hi < 2, got {r_bounds}")

    def mse(logr: float) -> float:
        ch = toy_finite_time(method, data, n, replace=replace, r=math.exp(logr), theta0=theta0, dps=dps)
        return float(ch.mse2(M))

    res = optimize.minimize_scalar(mse, bounds=(math.log(lo), math.log(hi)), method="bounded",
                                   options={"xatol": 1e-4})
    ch = toy_finite_time(method, data, n, replace=replace, r=math.exp(res.x), theta0=theta0, dps=dps)
    Af, hstar, msestar = float(ch.A), *optimal_step_expr(method)
    subs = _toy_subs(ch)
    subs[_M] = M
    return OptimalStep(M=M, r_exact=math.exp(res.x), mse_exact=float(res.fun),
                       r_asymptotic=float(hstar.subs(subs)) * Af, mse_asymptotic=float(msestar.subs(subs)))


def asymptotic_mse_constants(method: str, data, n: int | None, replace: bool = False) -> tuple[float, float]:
    """The constants (c1, C_v) for this data set and n: MSE2(M, h) ~ c1^2 h^2 + C_v/(M h) for small h, large M h.

    Remark 8's optimum is then h* = (C_v / (2 c1^2 M))^(1/3) (module docstring).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    data : array_like, shape (N,)
        The toy's data.
    n : int or None
        The subset size (None for Euler).
    replace : bool, default False
        Subsets with replacement or without.

    Returns
    -------
    c1 : float
    C_v : float

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Theorem 9 (arXiv Theorem 5.2) and Remark 8, made explicit on the toy (new;
    :doc:`/papers/vollmer`, secs. 4.4 and 6).
    """
    ch = toy_finite_time(method, data, n, replace=replace, r=0.5)
    c1, cv = theorem52_constants(method)
    subs = _toy_subs(ch)
    return float(c1.subs(subs)), float(cv.subs(subs))


def _toy_subs(ch: ToyFiniteTime) -> dict:
    return {A: float(ch.A), VB: float(ch.var_B), EB: float(ch.b[1]), _mu: float(ch.posterior_mean)}


def fitted_exponent(x, y) -> float:
    """The least-squares slope of log y on log x.

    Parameters
    ----------
    x : array_like
        Positive abscissae.
    y : array_like
        Positive ordinates.

    Returns
    -------
    float
    """
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


# --------------------------------------------------------------------------------------- Section 6.2 and (70)

def excess_scaling_exponent(method: str, p: sp.Expr) -> sp.Expr:
    """Exponent e with asymptotic excess bias over Euler ~ const * N^e for n = N^p at fixed r (Section 6.2).

    Without replacement, sigma_x = sigma0 = 1: A = (1 + N)/2, h = r/A, Var(B) = N (N - n)/(4 n) VarX (eq. 16).
    SGLD: e = -p (vanishes iff n -> inf); mSGLD: e = 1 - 2p (bounded iff n >~ N^(1/2)).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    p : sympy.Expr
        The exponent of n = N^p.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 6.2 (:doc:`/papers/vollmer`, secs. 3 and 7).
    """
    exc = tm.excess_over_euler(method)
    vb = _N * (_N - _N**p) / (4 * _N**p) * _vx
    expr = exc.subs({VB: vb, h: _r / A}).subs(A, (1 + _N) / 2)
    lead = sp.limit(sp.log(sp.simplify(expr)) / sp.log(_N), _N, sp.oo)
    return sp.simplify(lead)


def msgld_beats_sgld_threshold() -> sp.Expr:
    """The ratio of mSGLD's excess bias over Euler to SGLD's, h V_B/4: mSGLD's is the smaller iff h Var(B) <= 4.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), inequality (70) (:doc:`/papers/vollmer`, sec. 3).
    """
    return sp.simplify(tm.excess_over_euler("msgld") / tm.excess_over_euler("sgld"))


# --------------------------------------------------------------------------------------- Section 6.1 (eq. 69)

@dataclass(frozen=True)
class MinimalCost:
    """The cheapest (r, M, n) with MSE2 <= eps2 for one scheme; cost = M n gradient evaluations.

    Parameters
    ----------
    method : str
        The scheme.
    eps2 : float
        The MSE target.
    n : int
        The subset size.
    r : float
        r = A h.
    M : float
        The number of states (inf when infeasible).
    cost : float
        M n.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 6.1, eq. (69) and Figure 3 (:doc:`/papers/vollmer`, secs. 7 and 9).
    """

    method: str
    eps2: float
    n: int
    r: float
    M: float
    cost: float


def minimal_steps(chain: ToyFiniteTime, eps2: float, exact: bool = True) -> float:
    """Smallest integer M with MSE2(M) <= eps2 from the exact closed form (inf when bias^2 >= eps2).

    The expansion MSE2 ~ e0 + e1/M + e2/M^2 (exact up to O(M^2 a^M)) gives a first guess; an integer bisection on
    the exact closed form then finds the crossing (MSE2 is taken to cross eps2 once beyond the transient). With
    ``exact=False`` the guess itself is returned, ceil(1/u) with u the root of e0 + e1 u + e2 u^2 = eps2 (the
    leading-order steps: equal to the exact M once the transient a^M is negligible, at a fraction of the cost).

    Parameters
    ----------
    chain : theory.toy.finite_time.ToyFiniteTime
        The chain.
    eps2 : float
        The MSE target, > 0.
    exact : bool, default True
        The exact crossing (True) or the leading-order steps (False).

    Returns
    -------
    float
        M, or inf.

    Raises
    ------
    ParameterError
        When eps2 is not positive.
    """
    eps2 = check_positive("eps2", eps2)
    e0, e1, e2 = (float(v) for v in chain.expansion("mse2"))
    if e0 >= eps2:
        return math.inf
    disc = e1 * e1 - 4 * e2 * (e0 - eps2)
    u = (-e1 + math.sqrt(disc)) / (2 * e2) if e2 > 0 and disc >= 0 else (eps2 - e0) / max(e1, 1e-300)
    if not exact:
        return float(max(1, math.ceil(1.0 / u))) if u > 0 else 1.0
    guess = max(1, int(1.0 / u)) if u > 0 else 1

    def ok(m: int) -> bool:
        return float(chain.mse2(m)) <= eps2

    lo, hi = max(1, guess // 2), max(2, 2 * guess)
    while not ok(hi):
        lo, hi = hi, 2 * hi
    if ok(lo):
        while lo > 1 and ok(lo):
            hi, lo = lo, max(1, lo // 2)
        if ok(lo):
            return 1.0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return float(hi)


def minimal_cost(method: str, data, eps2: float, n_values, replace: bool = False, theta0: float = 0.0,
                 r_bounds: tuple[float, float] = (1e-4, 0.999), dps: int = 40, exact: bool = True) -> MinimalCost:
    """The least cost M(r, n) n over n in n_values and r in r_bounds subject to MSE2 <= eps2 (r < 1 as in the paper).

    Euler ignores n_values (n = N). ``exact=False`` takes the leading-order steps of :func:`minimal_steps` (re-check
    the optimum with the exact closed form: :func:`reaches`).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    data : array_like, shape (N,)
        The toy's data.
    eps2 : float
        The MSE target, > 0.
    n_values : iterable of int
        Subset sizes to try, 1 <= n <= N.
    replace : bool, default False
        Subsets with replacement or without.
    theta0 : float, default 0.0
        The deterministic start.
    r_bounds : tuple of float, default (1e-4, 0.999)
        The range of r.
    dps : int, default 40
        Decimal digits of the exact MSE.
    exact : bool, default True
        Exact minimal steps (True) or the leading-order steps (False).

    Returns
    -------
    MinimalCost

    Raises
    ------
    ParameterError
        When eps2 or an n is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 6.1, eq. (69) and Figure 3 (:doc:`/papers/vollmer`, secs. 7 and 9).
    """
    eps2 = check_positive("eps2", eps2)
    N = int(np.asarray(data).size)
    ns = [N] if method == "euler" else sorted({check_int("n", int(v), 1, N) for v in n_values})
    best = MinimalCost(method, eps2, ns[0], math.nan, math.inf, math.inf)
    for n in ns:
        base = None if exact else toy_finite_time(method, data, None if method == "euler" else n, replace=replace,
                                                 r=0.5, theta0=theta0, dps=dps)

        def cost(logr: float, n=n, base=base) -> float:
            if base is None:
                ch = toy_finite_time(method, data, None if method == "euler" else n, replace=replace,
                                     r=math.exp(logr), theta0=theta0, dps=dps)
            else:
                with mpmath.workdps(dps):
                    ch = dataclasses.replace(base, h=mpmath.mpf(math.exp(logr)) / base.A)
            m = minimal_steps(ch, eps2, exact)
            return math.log(m * n) if math.isfinite(m) else 1e3 - logr  # infeasible: push r down
        res = optimize.minimize_scalar(cost, bounds=(math.log(r_bounds[0]), math.log(r_bounds[1])),
                                       method="bounded", options={"xatol": 1e-3})
        c = math.exp(res.fun) if res.fun < 500 else math.inf
        if c < best.cost:
            best = MinimalCost(method, eps2, n, math.exp(res.x), c / n, c)
    return best


def reaches(method: str, data, n: int | None, r: float, M: int, eps2: float, dps: int = 40) -> tuple[bool, bool]:
    """Whether the exact MSE2 of ``method`` at (n, r) is <= eps2 after M states, and after M - 1.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    data : array_like, shape (N,)
        The toy's data.
    n : int or None
        Subset size (None for Euler).
    r : float
        r = A h.
    M : int
        Number of averaged states, >= 1.
    eps2 : float
        The MSE target.
    dps : int, default 40
        Decimal digits of the exact MSE.

    Returns
    -------
    tuple of bool
        (MSE2(M) <= eps2, MSE2(M - 1) <= eps2): (True, False) says M is the exact minimal number of states at this r;
        both True say it is not minimal.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 6.1, eq. (69) (:doc:`/papers/vollmer`).
    """
    ch = toy_finite_time(method, data, n, r=r, dps=dps)
    return float(ch.mse2(M)) <= eps2, M > 1 and float(ch.mse2(M - 1)) <= eps2


@dataclass(frozen=True)
class Cheapest:
    """The smallest exact MSE2 reachable at a budget, and where: n, r = A h, M = floor(cost/n).

    Parameters
    ----------
    method : str
        The scheme.
    cost : int
        The budget in gradient evaluations.
    mse2 : float
        The smallest MSE2 (inf when no n fits the budget).
    n : int
        The subset size reaching it.
    r : float
        r = A h there.
    M : int
        floor(cost/n).
    """

    method: str
    cost: int
    mse2: float
    n: int
    r: float
    M: int


def cheapest_mse2(method: str, data, cost: int, n_values: Iterable[int], r_bounds: tuple[float, float] = (1e-3, 0.999),
                  dps: int = 25) -> Cheapest:
    """min over n in n_values and r in r_bounds of the exact MSE2(M = floor(cost/n)) of ``method`` (eq. 69's
    constraint turned around; theta_0 = 0, draws without replacement, as in theory.toy.finite_time). If it exceeds a
    target, no (n, r) of the grid with r in r_bounds reaches the target at that cost (new).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    data : array_like, shape (N,)
        The toy's data.
    cost : int
        The budget, >= 1.
    n_values : iterable of int
        Subset sizes to try, 1 <= n <= N.
    r_bounds : tuple of float, default (1e-3, 0.999)
        0 < lo < hi < 2.
    dps : int, default 25
        Decimal digits of the exact MSE.

    Returns
    -------
    Cheapest

    Raises
    ------
    ParameterError
        When cost, an n or r_bounds is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 6.1, eq. (69) and Figure 3 (:doc:`/papers/vollmer`, secs. 7 and 9).
    """
    cost = check_int("cost", cost, 1)
    lo, hi = r_bounds
    if not 0 < lo < hi < 2:
        raise ParameterError(f"r_bounds must satisfy 0 < lo < hi < 2, got {r_bounds}")
    x = np.asarray(data, dtype=np.float64).ravel()
    best = Cheapest(method, cost, math.inf, 0, math.nan, 0)
    for n in sorted({check_int("n", int(v), 1, x.size) for v in n_values}):
        M = cost // n
        if M < 1:
            continue
        base = toy_finite_time(method, x, n, r=0.5, dps=dps)

        def log_mse(logr: float, base=base, M=M) -> float:
            with mpmath.workdps(dps):
                ch = dataclasses.replace(base, h=mpmath.mpf(math.exp(logr)) / base.A)
                return math.log(float(ch.mse2(M)))

        res = optimize.minimize_scalar(log_mse, bounds=(math.log(lo), math.log(hi)), method="bounded",
                                       options={"xatol": 1e-3})
        v = math.exp(res.fun)
        if v < best.mse2:
            best = Cheapest(method, cost, v, n, math.exp(res.x), M)
    return best
