"""The MSE bounds of Chen, Wang, Zhang, Su & Carin (vrSG-MCMC), kept symbolic (sympy), with their calculus.

Two versions are cited (numbering map in docs/papers/chen.md sec. 1): V1 (arXiv, with appendix) and V2
(SCIS 2019).  All constants are symbolic; "C" is the unknown big-O constant, ``C1`` the budget constant T = C1 n L.

Step-size convention: the paper writes SGLD as theta - h grad U + sqrt(2h) zeta, i.e. its ``h`` is the workbench's
eps = h_wb / 2 (README; simulate.conventions).  Every formula below is in the paper's h unless a name says ``_wb``:
the budget-optimal h* = (n/(2T))^(1/3) (paper) is h_wb* = 2 (n/(2T))^(1/3) in the workbench convention.
"""

from __future__ import annotations

import math

import sympy as sp

from simulate.validation import ParameterError, check_int, check_positive

#: Symbols of the bounds: the data set's size, the minibatch size, the budget T = C1 n L, the number of samples L,
#: the paper's step size h.
N, n, T, L, h = sp.symbols("N n T L h", positive=True)
#: Symbols of the bounds: Gamma_M, the big-O constant C, the budget constant C_1, the integrator's order K, the epoch m.
Gamma, C, C1, K, m = sp.symbols("Gamma_M C C_1 K m", positive=True)
sum_dv2, sum_edv = sp.symbols("S_dV2 S_EdV", nonnegative=True)


def lemma1_bias_bound() -> sp.Expr:
    """Lemma 1's bias bound, ``|E phi_L - phi_bar| = O(sum_l ||E dV_l|| / L + 1/(L h) + h^K)``.

    ``S_EdV`` stands for ``sum_l ||E dV_l||``.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 1 (V1 and V2), from Chen, Ding & Carin (2015)
    (:doc:`/papers/chen`, sec. 3).
    """
    return sum_edv / L + 1 / (L * h) + h**K


def lemma1_mse_bound() -> sp.Expr:
    """Lemma 1's MSE bound, ``E(phi_L - phi_bar)^2 = O((1/L) sum_l E||dV_l||^2 / L + 1/(L h) + h^(2K))``.

    ``S_dV2`` stands for ``(1/L) sum_l E||dV_l||^2``, the average per-step gradient-noise variance.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Lemma 1 (V1 and V2) (:doc:`/papers/chen`, sec. 3).
    """
    return sum_dv2 / L + 1 / (L * h) + h ** (2 * K)


def eq7_noise() -> sp.Expr:
    """The minibatch noise ``E||dV_l||^2 = (N - n) N^2 Gamma_l / n`` (without replacement).

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 Appendix B, eq. (7) (:doc:`/papers/chen`, sec. 3).
    """
    return (N - n) * N**2 * Gamma / n


def theorem3_bound(printed_factor_2: bool = True) -> sp.Expr:
    """The MSE bound of SGLD: MSE <= C (2 (N - n) N^2 Gamma_M / (n L) + 1/(L h) + h^2) (K = 1).

    Parameters
    ----------
    printed_factor_2 : bool, default True
        The statement's factor 2; False gives the proof's result without it.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Theorem 3 (V1) / Theorem 1 (V2) (:doc:`/papers/chen`, secs. 3 and 6).
    """
    f = 2 if printed_factor_2 else 1
    return C * (f * (N - n) * N**2 * Gamma / (n * L) + 1 / (L * h) + h**2)


def budget_bound(printed_factor_2: bool = False, with_c1: bool = False) -> sp.Expr:
    """The bound under a budget: Theorem 3/1 with L = T/(C1 n), C((N - n)N^2 Gamma/T + n/(T h) + h^2) for C1 = 1.

    Parameters
    ----------
    printed_factor_2 : bool, default False
        Keep the statement's factor 2.
    with_c1 : bool, default False
        Keep the budget constant C1 (else C1 = 1).

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Assumption 1 and Theorem 3 (V1) / 1 (V2) (:doc:`/papers/chen`, sec. 3).
    """
    e = theorem3_bound(printed_factor_2).subs(L, T / ((C1 if with_c1 else 1) * n))
    return sp.expand(e)


def budget_optimal_step() -> sp.Expr:
    """The budget-optimal step h* = argmin_h [n/(T h) + h^2] = (n/(2T))^(1/3), in the paper's convention.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 eq. (9), derived anew (:doc:`/papers/chen`, sec. 3).
    """
    sol = sp.solve(sp.diff(n / (T * h) + h**2, h), h)
    return sp.simplify(sol[0])


def budget_optimal_step_wb() -> sp.Expr:
    """The budget-optimal step in the workbench convention theta + (h/2) g + sqrt(h) xi: h_wb* = 2 (n/(2T))^(1/3).

    Returns
    -------
    sympy.Expr
    """
    return 2 * budget_optimal_step()


def optimised_bound(exact_constant: bool = False) -> sp.Expr:
    """The budget bound minimised over h: (N - n) N^2 Gamma/T + c n^(2/3)/T^(2/3).

    Parameters
    ----------
    exact_constant : bool, default False
        False: the O-form n^(2/3)/T^(2/3); True: the exact minimum's constant 3/2^(2/3).

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), V1 eq. (9) and V2 (:doc:`/papers/chen`, sec. 3).
    """
    c = ((n / (T * h) + h**2).subs(h, budget_optimal_step()) if exact_constant
         else n ** sp.Rational(2, 3) / T ** sp.Rational(2, 3))
    return (N - n) * N**2 * Gamma / T + sp.simplify(c)


def critical_point(exact_constant: bool = False) -> sp.Expr:
    """The n where d/dn of the optimised bound vanishes: 8T/(27 N^6 Gamma^3); 2T/(N^6 Gamma^3) with the exact constant.

    Parameters
    ----------
    exact_constant : bool, default False
        False: the O-form n^(2/3)/T^(2/3); True: the exact minimum's constant 3/2^(2/3).

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), the proof of Corollary 4 (V1); V2's "critical point"; the exact constant's
    is new (:doc:`/papers/chen`, secs. 3 and 6).
    """
    sol = sp.solve(sp.diff(optimised_bound(exact_constant), n), n)
    return sp.simplify(sol[0])


def second_derivative_in_n(exact_constant: bool = False) -> sp.Expr:
    """d^2/dn^2 of the optimised bound: -(2/9) n^(-4/3) T^(-2/3) < 0 (O-form), so the bound is concave in n (new).

    Parameters
    ----------
    exact_constant : bool, default False
        False: the O-form n^(2/3)/T^(2/3); True: the exact minimum's constant 3/2^(2/3).

    Returns
    -------
    sympy.Expr
    """
    return sp.simplify(sp.diff(optimised_bound(exact_constant), n, 2))


def critical_point_kind(exact_constant: bool = False) -> str:
    """Whether the critical point maximises or minimises the optimised bound, from the second derivative's sign (new).

    V1 calls it "optimal", V2 only "critical point".

    Parameters
    ----------
    exact_constant : bool, default False
        False: the O-form n^(2/3)/T^(2/3); True: the exact minimum's constant 3/2^(2/3).

    Returns
    -------
    str
        "maximiser" or "minimiser".

    Raises
    ------
    ValueError
        When sympy cannot decide the sign.
    """
    d2 = second_derivative_in_n(exact_constant).subs(n, critical_point(exact_constant))
    sign = sp.sign(sp.simplify(d2))
    if sign == -1:
        return "maximiser"
    if sign == 1:
        return "minimiser"
    raise ValueError(f"undetermined sign of the second derivative: {d2}")


def regime_thresholds() -> tuple[sp.Expr, sp.Expr]:
    """The corollary's budget thresholds T1 = (27/8) Gamma^3 N^6 and T2 = (27/8) Gamma^3 N^7.

    Returns
    -------
    tuple of sympy.Expr
        (T1, T2).

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Corollary 4 (V1) / Corollary 1 (V2), cases 1 and 2 (:doc:`/papers/chen`,
    sec. 3).
    """
    return sp.Rational(27, 8) * Gamma**3 * N**6, sp.Rational(27, 8) * Gamma**3 * N**7


def endpoint_tie() -> sp.Expr:
    """The budget T_x at which the optimised bound (O-form) is equal at n = 1 and n = N (new).

    T_x = ((N - 1) N^2 Gamma / (N^(2/3) - 1))^3.

    Returns
    -------
    sympy.Expr
    """
    f = optimised_bound()
    eq = sp.simplify(f.subs(n, 1) - f.subs(n, N))
    # (N - 1) N^2 Gamma / T - (N^(2/3) - 1) / T^(2/3) = 0  <=>  T^(1/3) = (N - 1) N^2 Gamma / (N^(2/3) - 1)
    tx = ((N - 1) * N**2 * Gamma / (N ** sp.Rational(2, 3) - 1)) ** 3
    val = eq.subs(T, tx).subs({N: 1000, Gamma: sp.Rational(1, 1000)})
    if abs(sp.N(val, 50)) > 1e-30:  # pragma: no cover - guarded identity
        raise ValueError("endpoint tie does not solve the equation")
    return tx


def bound_value(N_: int, n_: float, T_: float, gamma_: float) -> float:
    """The O-form optimised bound (N - n) N^2 Gamma/T + n^(2/3)/T^(2/3), numerically (V1 eq. (9)).

    Parameters
    ----------
    N_ : int
        N >= 1.
    n_ : float
        1 <= n <= N.
    T_ : float
        The budget, > 0.
    gamma_ : float
        Gamma, > 0.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When an argument is out of range.
    """
    N_ = check_int("N", N_, 1)
    n_ = check_positive("n", n_)
    if n_ > N_:
        raise ParameterError(f"n must satisfy 1 <= n <= N = {N_}, got {n_}")
    T_ = check_positive("T", T_)
    gamma_ = check_positive("Gamma", gamma_)
    return (N_ - n_) * N_**2 * gamma_ / T_ + n_ ** (2 / 3) / T_ ** (2 / 3)


def best_n_of_bound(N_: int, T_: float, gamma_: float) -> int:
    """The integer n in [1, N] minimising the O-form optimised bound (concave in n, so an endpoint; Corollary 4/1).

    Parameters
    ----------
    N_ : int
        N, the number of data.
    T_ : float
        T, the budget (per-datum gradient evaluations), > 0.
    gamma_ : float
        Gamma, > 0.

    Returns
    -------
    int
    """
    N_ = check_int("N", N_, 1)
    cand = {1, N_}
    nstar = 8 * T_ / (27 * N_**6 * gamma_**3)
    for c in (math.floor(nstar), math.ceil(nstar)):
        if 1 <= c <= N_:
            cand.add(c)
    return min(sorted(cand), key=lambda k: bound_value(N_, k, T_, gamma_))


def corollary_case(N_: int, T_: float, gamma_: float) -> int:
    """The optimal n Corollary 4 (V1) / 1 (V2) predicts: N if T < T1, 1 if T > T2, else 0 ("1 or N, depending").

    With unit big-O constants.

    Parameters
    ----------
    N_ : int
        N, the number of data.
    T_ : float
        T, the budget (per-datum gradient evaluations), > 0.
    gamma_ : float
        Gamma, > 0.

    Returns
    -------
    int

    Raises
    ------
    ParameterError
        When an argument is out of range.
    """
    N_ = check_int("N", N_, 1)
    T_ = check_positive("T", T_)
    gamma_ = check_positive("Gamma", gamma_)
    t1 = 27 / 8 * gamma_**3 * N_**6
    t2 = t1 * N_
    if T_ < t1:
        return N_
    if T_ > t2:
        return 1
    return 0


def vr_bound(K_: int = 1) -> sp.Expr:
    """vrSG-MCMC's bound, MSE = O(A_M/L + 1/(L h) + h^(2K) + m h/L - lambda_M/L).

    Parameters
    ----------
    K_ : int, default 1
        The integrator's order.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Theorem 6 (V1) / Theorem 2 (V2) (:doc:`/papers/chen`, sec. 3).
    """
    A_M, lam = sp.symbols("A_M lambda_M", real=True)
    return A_M / L + 1 / (L * h) + h ** (2 * K_) + m * h / L - lam / L


__all__ = [
    "C", "C1", "Gamma", "K", "L", "N", "T", "best_n_of_bound", "bound_value", "budget_bound", "budget_optimal_step",
    "budget_optimal_step_wb", "corollary_case", "critical_point", "critical_point_kind", "endpoint_tie", "eq7_noise",
    "h", "lemma1_bias_bound", "lemma1_mse_bound", "m", "n", "optimised_bound", "regime_thresholds",
    "second_derivative_in_n", "theorem3_bound", "vr_bound",
]
