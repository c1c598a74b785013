"""Exact averages over random data of the toy's finite-time quantities (Vollmer et al. 2016, Appendix 10.2).

:func:`expected_over_data` averages MSE2, MSE1, E S2 or the ERE of :mod:`theory.toy.finite_time` over data sets
x_i ~ iid N(theta_dag, sigma_X^2) exactly: for fixed (h, n, M) each quantity is a polynomial in mu, c_2, c_3, c_4
(:func:`theory.toy.finite_time_sympy.data_polynomial`), which are polynomials in the power sums p_1..p_4 of the data,
and E_X of a product of power sums follows from the Gaussian moments by a sum over set partitions
(:func:`expected_power_sum_monomial`). :func:`expected_over_data_mc` is the Monte Carlo version (for checks).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_int, check_positive, check_step_size
from theory.noise import subset_moments as sm
from theory.schemes import check_method
from theory.toy.finite_time import _A_float, step_size, toy_finite_time
from theory.toy.finite_time_sympy import (
    DEFAULT_DPS,
    _check_dps,
    _check_M,
    _check_quantity,
    _gauss_moment,
    _mpf,
    data_polynomial,
)


def _padd(P: dict, Q: dict, scale: Any = 1) -> dict:
    """P + scale * Q for polynomials in the power sums ({exponents: mpf})."""
    out = dict(P)
    for k_, v in Q.items():
        out[k_] = out.get(k_, 0) + scale * v
    return out


def _pmul(P: dict, Q: dict) -> dict:
    """P * Q for polynomials in the power sums."""
    out: dict = {}
    for k1, v1 in P.items():
        for k2, v2 in Q.items():
            key = tuple(u + w for u, w in zip(k1, k2, strict=True))
            out[key] = out.get(key, 0) + v1 * v2
    return out


def _ppow(P: dict, e: int) -> dict:
    """P^e for a polynomial in the power sums."""
    out = {(0, 0, 0, 0): mpmath.mpf(1)}
    for _ in range(e):
        out = _pmul(out, P)
    return out


def _poly_from_sympy(expr: sp.Expr) -> dict:
    """A sympy polynomial in p1..p4 with rational coefficients as {exponents: mpf}."""
    gens = sm.POWER_SUM_SYMBOLS[:4]
    poly = sp.Poly(sp.expand(expr), *gens)
    return {mon: _mpf(sp.Rational(c)) for mon, c in poly.terms()}


def _gaussian_raw_moment(m: int, mean: mpmath.mpf, sd: mpmath.mpf) -> mpmath.mpf:
    """E X^m for X ~ N(mean, sd^2)."""
    return mpmath.fsum(math.comb(m, j) * mean ** (m - j) * sd**j * _gauss_moment(j) for j in range(0, m + 1, 2))


@cache
def _monomial_partition_shapes(exponents: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Set partitions of the factor list of prod_m p_m^{e_m}, grouped by their sorted block sums: ((sums, count))."""
    factors = [m + 1 for m, e in enumerate(exponents) for _ in range(e)]
    counts: dict[tuple[int, ...], int] = {}
    for part in sm.set_partitions(factors):
        key = tuple(sorted(sum(block) for block in part))
        counts[key] = counts.get(key, 0) + 1
    return tuple(sorted(counts.items()))


def expected_power_sum_monomial(exponents: Sequence[int], N: int, mean: Any, sd: Any) -> mpmath.mpf:
    """E prod_m p_m^{e_m} for x_i ~ iid N(mean, sd^2), p_m = sum_i x_i^m, exactly (new).

    A sum over the set partitions of the factor list of (N)_{#blocks} prod_blocks E X^{sum of the block's orders}.

    Parameters
    ----------
    exponents : sequence of int
        e_1, e_2, ...: the power of each power sum p_m.
    N : int
        The number of data, >= 1.
    mean : number
        The data's mean.
    sd : number
        The data's standard deviation.

    Returns
    -------
    mpmath.mpf

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.2 (:doc:`/papers/vollmer`, sec. 4.6).
    """
    exponents = tuple(check_int("exponents[i]", e, 0) for e in exponents)
    N = check_int("N", N, 1)
    shapes = _monomial_partition_shapes(exponents)
    top = max((max(sums) for sums, _ in shapes if sums), default=0)
    gm = [_gaussian_raw_moment(m, mean, sd) for m in range(top + 1)]
    total = mpmath.mpf(0)
    for sums, count in shapes:
        term = mpmath.mpf(count * sm.falling(N, len(sums)))
        for s_ in sums:
            term *= gm[s_]
        total += term
    return total


def _data_polys(method: str, N: int, n: int, replace: bool, h: mpmath.mpf, A: mpmath.mpf,
                sigma_x: float) -> tuple[dict, dict, dict, dict]:
    """mu, c_2, c_3, c_4 as polynomials in the power sums p_1..p_4 (exact coefficients, mpmath)."""
    ps = (N,) + sm.POWER_SUM_SYMBOLS[:4]
    raws = sm.raw_moments_from_power_sums(ps, N, n, replace, 4)
    kap = [sp.expand(v) for v in sm.cumulants_from_raw(raws)]
    cB = sp.Rational(N, 2 * n) / sp.Rational(Fraction(sigma_x)) ** 2
    kB = [_poly_from_sympy(cB ** (j + 1) * kap[j]) if kap[j] != 0 else {} for j in range(4)]
    one = {(0, 0, 0, 0): mpmath.mpf(1)}
    mu_p = {k_: v / A for k_, v in kB[0].items()}
    v = kB[1]
    if method == "msgld":
        f = _padd(one, v, -h / 2)
        noise = {k_: h * w for k_, w in _pmul(f, f).items()}
    else:
        noise = {(0, 0, 0, 0): h}
    cc2 = _padd(noise, v, h**2)
    cc3 = {k_: h**3 * w for k_, w in kB[2].items()}
    cc4 = {k_: h**4 * w for k_, w in kB[3].items()}
    return mu_p, cc2, cc3, cc4


def expected_over_data(quantity: str, method: str, N: int, n: int | None, M_: int, *, replace: bool = False,
                       h: float | None = None, r: float | None = None, theta_dagger: float = 1.0,
                       sigma_X: float | None = None, sigma_x: float = 1.0, sigma0: float = 1.0,
                       theta0: float = 0.0, dps: int = 80) -> mpmath.mpf:
    """The exact expectation over data x_i ~ iid N(theta_dagger, sigma_X^2) of a finite-time quantity (new).

    mu_p, the minibatch cumulants and (mSGLD) the noise scale all depend on the data and sit inside the expectation:
    each quantity is a polynomial in the power sums of the data (:func:`theory.toy.finite_time_sympy.data_polynomial`),
    averaged term by term (:func:`expected_power_sum_monomial`).

    Parameters
    ----------
    quantity : str
        'es2', 'es2sq', 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num' or 'ere' (as for
        :meth:`theory.toy.finite_time.ToyFiniteTime.evaluate`).
    method : {"euler", "sgld", "msgld"}
        The scheme.
    N : int
        The number of data, >= 2.
    n : int or None
        The subset size, 1 <= n <= N (ignored for Euler).
    M_ : int
        M >= 1, the number of states averaged.
    replace : bool, default False
        Subsets with replacement or without.
    h : float, optional
        The step size; give exactly one of h and r.
    r : float, optional
        r = A h, 0 < r < 2.
    theta_dagger : float, default 1.0
        The data's mean.
    sigma_X : float, optional
        The data's standard deviation (default sigma_x: a well-specified model).
    sigma_x : float, default 1.0
        The model's likelihood standard deviation.
    sigma0 : float, default 1.0
        The prior's standard deviation.
    theta0 : float, default 0.0
        The deterministic start (0 as in Appendix 10.2).
    dps : int, default 80
        Decimal digits.

    Returns
    -------
    mpmath.mpf

    Raises
    ------
    ParameterError
        When an argument is out of range, both or neither of h and r is given, n is missing, or h is not below 2/A.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.2 (:doc:`/papers/vollmer`, sec. 4.6).
    """
    _check_quantity(quantity)
    check_method(method)
    N = check_int("N", N, 2)
    M_ = _check_M(M_)
    sigma_x = check_positive("sigma_x", sigma_x)
    sigma0 = check_positive("sigma0", sigma0)
    sigma_X = sigma_x if sigma_X is None else check_positive("sigma_X", sigma_X)
    if (h is None) == (r is None):
        raise ParameterError("give exactly one of h (0 < h < 2/A) and r = A h (0 < r < 2)")
    if h is None:
        h = step_size(r, N, sigma_x, sigma0)
    check_step_size(h, 2.0 / _A_float(N, sigma_x, sigma0), "stability of the toy chain, h < 2/A")
    if method == "euler":
        n, replace = N, False
    elif n is None:
        raise ParameterError(f"n must be given for {method}: 1 <= n <= N = {N}")
    n = check_int("n", n, 1, N)
    dps = _check_dps(dps)
    with mpmath.workdps(dps):
        A = _mpf((Fraction(1) / Fraction(sigma0) ** 2 + Fraction(N) / Fraction(sigma_x) ** 2) / 2)
        hh = _mpf(float(h))
        polys = _data_polys(method, N, n, bool(replace), hh, A, sigma_x)
        aa = 1 - A * hh
        args = (aa, mpmath.power(aa, M_), mpmath.mpf(M_), None, _mpf(float(theta0)), None, None, None, 1 / (2 * A))
        acc: dict = {}
        for mon, f in data_polynomial(quantity):
            coef = f(*[0 if v is None else v for v in args])
            term = {(0, 0, 0, 0): coef}
            for P, e in zip(polys, mon, strict=True):
                if e:
                    term = _pmul(term, _ppow(P, e))
            acc = _padd(acc, term)
        mean, sd = _mpf(float(theta_dagger)), _mpf(float(sigma_X))
        return mpmath.fsum(c * expected_power_sum_monomial(k_, N, mean, sd) for k_, c in acc.items() if c != 0)


def expected_over_data_mc(quantity: str, method: str, N: int, n: int | None, M_: int, n_datasets: int, seed: int,
                          *, replace: bool = False, h: float | None = None, r: float | None = None,
                          theta_dagger: float = 1.0, sigma_X: float | None = None, sigma_x: float = 1.0,
                          sigma0: float = 1.0, theta0: float = 0.0, dps: int = DEFAULT_DPS
                          ) -> tuple[float, float]:
    """The Monte Carlo counterpart of :func:`expected_over_data`: the exact fixed-data quantity averaged over data sets.

    Parameters
    ----------
    quantity : str
        'es2', 'es2sq', 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num' or 'ere' (as for
        :meth:`theory.toy.finite_time.ToyFiniteTime.evaluate`).
    method : {"euler", "sgld", "msgld"}
        The scheme.
    N : int
        The number of data, >= 2.
    n : int or None
        The subset size, 1 <= n <= N (ignored for Euler).
    M_ : int
        M >= 1, the number of states averaged.
    n_datasets : int
        Simulated data sets, >= 2.
    seed : int
        The seed of the data sets, >= 0.
    replace : bool, default False
        Subsets with replacement or without.
    h : float, optional
        The step size; give exactly one of h and r.
    r : float, optional
        r = A h, 0 < r < 2.
    theta_dagger : float, default 1.0
        The data's mean.
    sigma_X : float, optional
        The data's standard deviation (default sigma_x: a well-specified model).
    sigma_x : float, default 1.0
        The model's likelihood standard deviation.
    sigma0 : float, default 1.0
        The prior's standard deviation.
    theta0 : float, default 0.0
        The deterministic start (0 as in Appendix 10.2).
    dps : int, default DEFAULT_DPS
        Decimal digits of each fixed-data evaluation.

    Returns
    -------
    mean : float
    se : float
        The standard error of the mean across data sets.

    Raises
    ------
    ParameterError
        When an argument is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.2 (:doc:`/papers/vollmer`, sec. 4.6).
    """
    n_datasets = check_int("n_datasets", n_datasets, 2)
    seed = check_int("seed", seed, 0)
    N = check_int("N", N, 2)
    sigma_X = sigma_x if sigma_X is None else check_positive("sigma_X", sigma_X)
    if h is None and r is not None:
        h, r = step_size(r, N, sigma_x, sigma0), None
    rng = np.random.default_rng(seed)
    vals = []
    for _ in range(n_datasets):
        xd = theta_dagger + sigma_X * rng.standard_normal(N)
        ch = toy_finite_time(method, xd, n, replace=replace, h=h, r=r, sigma_x=sigma_x, sigma0=sigma0,
                             theta0=theta0, dps=dps)
        vals.append(float(ch.evaluate(quantity, M_)))
    v = np.array(vals)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


__all__ = ["expected_over_data", "expected_over_data_mc", "expected_power_sum_monomial"]
