"""Exact moments of the minibatch sum S = sum_{i in tau} x_i for a fixed data set, and of B = N S / (2 n sigma_x^2).

Vollmer, Zygalakis & Teh (2016), Section 2.2 (Var(B), eq. 16) and Appendix 10.1 (E B^p, p <= 4); the general
recipe is in docs/papers/vollmer.md sec. 4.5.

* **With replacement** tau holds n iid uniform indices, so S is a sum of n iid draws from the empirical law:
  kappa_j(S) = n kappa_j(empirical law), or in raw moments
  E S^p = sum over set partitions P of {1..p} of (n)_{|P|} prod_{blocks b} (p_{|b|} / N).
* **Without replacement** tau is a uniform n-subset:
  E S^p = sum_P (n)_{|P|} / (N)_{|P|} D(block sizes of P), where D(s_1..s_b) = sum over distinct j_1..j_b of
  prod_l x_{j_l}^{s_l} is a polynomial in the power sums p_m = sum_i x_i^m (Moebius inversion over set
  partitions of the blocks).

Everything is written for generic arithmetic, so one function gives exact rationals (``fractions.Fraction``;
a float64 datum is an exact binary fraction), mpmath numbers, or sympy expressions in the power sums.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive

#: Highest moment order the public functions accept (the toy chain needs p <= 4; random data needs up to 8).
P_MAX = 8

#: The symbol N of the symbolic forms: the data set's size.
N_SYM = sp.Symbol("N", positive=True, integer=True)
#: The symbol n of the symbolic forms: the minibatch size.
n_SYM = sp.Symbol("n", positive=True, integer=True)
#: The symbols p1..p8 of the symbolic forms: the power sums p_m = sum_i x_i^m.
POWER_SUM_SYMBOLS = sp.symbols("p1:9", real=True)


# ------------------------------------------------------------------------------------------ combinatorics

def set_partitions(items: Sequence) -> Iterator[list[list]]:
    """All set partitions of ``items``, Bell(len(items)) of them (new).

    Parameters
    ----------
    items : sequence
        The items.

    Yields
    ------
    list of list
        One partition, as a list of blocks.
    """
    items = list(items)
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1:]]


@cache
def _partition_shapes(p: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Block-size multisets of the set partitions of {1..p}, with multiplicities: ((sizes, count), ...)."""
    counts: dict[tuple[int, ...], int] = {}
    for part in set_partitions(range(p)):
        key = tuple(sorted((len(b) for b in part), reverse=True))
        counts[key] = counts.get(key, 0) + 1
    return tuple(sorted(counts.items()))


def falling(x: Any, k: int) -> Any:
    """The falling factorial (x)_k = x (x-1) ... (x-k+1), (x)_0 = 1, for numbers or sympy expressions (new).

    Parameters
    ----------
    x : number or sympy.Expr
        The base.
    k : int
        The number of factors, >= 0.

    Returns
    -------
    number or sympy.Expr
    """
    out = 1
    for j in range(k):
        out = out * (x - j)
    return out


def _ratio(num: Any, den: Any) -> Any:
    """num/den, exact (Fraction) when both are integers or Fractions."""
    if isinstance(num, (int, Fraction)) and isinstance(den, (int, Fraction)):
        return Fraction(num) / Fraction(den)
    return num / den


def distinct_index_sum(sizes: Sequence[int], psums: Sequence) -> Any:
    """D(s_1..s_b) = sum over pairwise distinct j_1..j_b of prod_l x_{j_l}^{s_l}, from the power sums.

    Moebius inversion over the set partitions pi of the b positions:
    D = sum_pi prod_{C in pi} (-1)^{c-1} (c-1)! p_{sum_{l in C} s_l}, c the size of block C.

    Parameters
    ----------
    sizes : sequence of int
        s_1..s_b.
    psums : sequence
        ``psums[m]`` = p_m = sum_i x_i^m (numbers or sympy symbols).

    Returns
    -------
    number or sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.1 (:doc:`/papers/vollmer`, sec. 4.5).
    """
    total = 0
    for part in set_partitions(range(len(sizes))):
        term = 1
        for block in part:
            c = len(block)
            term = term * ((-1) ** (c - 1) * math.factorial(c - 1)) * psums[sum(sizes[i] for i in block)]
        total = total + term
    return total


# ------------------------------------------------------------------------------------------ moments of S

def raw_moments_from_power_sums(psums: Sequence, N: Any, n: Any, replace: bool, p_max: int = 4) -> list:
    """The raw moments E S^0, ..., E S^p_max of a minibatch sum S, from the data's power sums.

    The set-partition formula (Appendix 10.1 of the paper, with its "with replacement" label corrected): without
    replacement (n)_b/(N)_b D(sizes); with replacement (n)_b prod (p_s / N). N and n may be integers (exact
    Fractions come back) or sympy symbols.

    Parameters
    ----------
    psums : sequence
        ``psums[m]`` = sum_i x_i^m for m <= p_max, psums[0] = N.
    N : int or sympy.Expr
        The number of data.
    n : int or sympy.Expr
        The minibatch size.
    replace : bool
        With replacement or without.
    p_max : int, default 4
        The highest order.

    Returns
    -------
    list
        [E S^0, ..., E S^p_max].

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.1 (:doc:`/papers/vollmer`, sec. 4.5).
    """
    out = []
    for p in range(p_max + 1):
        total = 0
        for sizes, count in _partition_shapes(p):
            b = len(sizes)
            if replace:
                term = falling(n, b)
                for s in sizes:
                    term = term * _ratio(psums[s], N)
            elif isinstance(n, int) and b > n:
                continue  # an n-subset holds at most n distinct items: (n)_b = 0
            else:
                term = _ratio(falling(n, b), falling(N, b)) * distinct_index_sum(sizes, psums)
            total = total + count * term
        out.append(total)
    return out


def cumulants_from_raw(m: Sequence) -> list:
    """The cumulants from the raw moments, by kappa_p = m_p - sum_{q=1}^{p-1} C(p-1, q-1) kappa_q m_{p-q} (new).

    Parameters
    ----------
    m : sequence
        Raw moments [m_0 = 1, m_1, ...].

    Returns
    -------
    list
        [kappa_1, ..., kappa_{len(m)-1}].
    """
    kap: list = [0]
    for p in range(1, len(m)):
        val = m[p]
        for q in range(1, p):
            val = val - math.comb(p - 1, q - 1) * kap[q] * m[p - q]
        kap.append(val)
    return kap[1:]


def raw_from_cumulants(kappa: Sequence) -> list:
    """The raw moments from the cumulants, the inverse of :func:`cumulants_from_raw`.

    Parameters
    ----------
    kappa : sequence
        Cumulants [kappa_1, kappa_2, ...].

    Returns
    -------
    list
        Raw moments [m_0 = 1, m_1, ...].
    """
    m: list = [1]
    for p in range(1, len(kappa) + 1):
        val = 0
        for q in range(1, p + 1):
            val = val + math.comb(p - 1, q - 1) * kappa[q - 1] * m[p - q]
        m.append(val)
    return m


def with_replacement_moments_via_cumulants(psums: Sequence, N: Any, n: Any, p_max: int = 4) -> list:
    """The raw moments of S with replacement, from kappa_j(S) = n kappa_j(empirical law) (new form).

    An independent route to :func:`raw_moments_from_power_sums` with ``replace=True``: S is a sum of n iid draws
    from the empirical law.

    Parameters
    ----------
    psums : sequence
        ``psums[m]`` = sum_i x_i^m, psums[0] = N.
    N : int or sympy.Expr
        The number of data.
    n : int or sympy.Expr
        The minibatch size.
    p_max : int, default 4
        The highest order.

    Returns
    -------
    list
        [E S^0, ..., E S^p_max].

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2.2.
    """
    emp = [1] + [_ratio(psums[j], N) for j in range(1, p_max + 1)]
    kap = cumulants_from_raw(emp)
    return raw_from_cumulants([n * k for k in kap])


def _check_data(data: ArrayLike) -> np.ndarray:
    """A finite 1-D data array (shape (N,) or (N, 1))."""
    x = check_finite_array("data", data, ndim=(1, 2))
    if x.ndim == 2:
        if x.shape[1] != 1:
            raise ParameterError(f"data must be 1-D (shape (N,) or (N, 1)), got shape {x.shape}")
        x = x[:, 0]
    return x


def _check_p_max(p_max: int) -> int:
    """0 <= p_max <= P_MAX."""
    return check_int("p_max", p_max, 0, P_MAX)


def power_sums(data: ArrayLike, p_max: int = 4, exact: bool = True) -> tuple:
    """The power sums p_0 = N, p_1, ..., p_{p_max} of a data set, p_m = sum_i x_i^m (new).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data set, finite numbers.
    p_max : int, default 4
        The highest order, 0 <= p_max <= 8 (``P_MAX``).
    exact : bool, default True
        Exact Fractions (each float64 datum is an exact binary fraction) or float64.

    Returns
    -------
    tuple
        (N, p_1, ..., p_{p_max}).

    Raises
    ------
    ParameterError
        When the data are not finite 1-D numbers or p_max is out of range.
    """
    x = _check_data(data)
    p_max = _check_p_max(p_max)
    if not exact:
        return (x.size,) + tuple(float(np.sum(x**m)) for m in range(1, p_max + 1))
    fx = [Fraction(float(v)) for v in x]
    out = [x.size]
    cur = [Fraction(1)] * len(fx)
    for _ in range(p_max):
        cur = [c * f for c, f in zip(cur, fx, strict=True)]
        out.append(sum(cur, Fraction(0)))
    return tuple(out)


def _check_n(n: int, N: int) -> int:
    """1 <= n <= N."""
    return check_int("n", n, 1, N)


def subset_sum_moments(data: ArrayLike, n: int, replace: bool = False, p_max: int = 4) -> tuple[Fraction, ...]:
    """The exact raw moments of a minibatch sum S = sum_{i in tau} x_i of a fixed data set.

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data set, finite numbers.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        tau holds n iid uniform indices (True) or is a uniform n-subset (False).
    p_max : int, default 4
        The highest order, 0 <= p_max <= 8 (``P_MAX``).

    Returns
    -------
    tuple of fractions.Fraction
        (E S^0, ..., E S^p_max).

    Raises
    ------
    ParameterError
        When the data are not finite 1-D numbers, or n or p_max is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.1 (:doc:`/papers/vollmer`, sec. 4.5).
    """
    x = _check_data(data)
    n = _check_n(n, x.size)
    ps = power_sums(x, _check_p_max(p_max))
    return tuple(raw_moments_from_power_sums(ps, x.size, n, bool(replace), p_max))


def subset_sum_cumulants(data: ArrayLike, n: int, replace: bool = False, p_max: int = 4) -> tuple[Fraction, ...]:
    """The exact cumulants of a minibatch sum S (with replacement kappa_j(S) = n kappa_j(empirical law)).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data set, finite numbers.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        tau holds n iid uniform indices (True) or is a uniform n-subset (False).
    p_max : int, default 4
        The highest order, 0 <= p_max <= 8 (``P_MAX``).

    Returns
    -------
    tuple of fractions.Fraction
        (kappa_1(S), ..., kappa_p_max(S)).

    Raises
    ------
    ParameterError
        When the data are not finite 1-D numbers, or n or p_max is out of range.
    """
    return tuple(cumulants_from_raw(subset_sum_moments(data, n, replace, p_max)))


def b_scale(N: int, n: int, sigma_x: float) -> Fraction:
    """The scale c = N / (2 n sigma_x^2) with B = c S (eq. (15)), exact for a float sigma_x.

    Parameters
    ----------
    N : int
        The number of data.
    n : int
        The minibatch size.
    sigma_x : float
        The data's standard deviation, > 0.

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    ParameterError
        When sigma_x is not positive.
    """
    sx2 = Fraction(check_positive("sigma_x", sigma_x)) ** 2
    return Fraction(N, 2 * n) / sx2


def minibatch_term_moments(data: ArrayLike, n: int, replace: bool = False, sigma_x: float = 1.0,
                           p_max: int = 4) -> tuple[Fraction, ...]:
    """The exact raw moments of the toy's minibatch term B = (N/n) sum_{i in tau} x_i / (2 sigma_x^2).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data set, finite numbers.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        tau holds n iid uniform indices (True) or is a uniform n-subset (False).
    sigma_x : float, default 1.0
        The data's standard deviation, > 0.
    p_max : int, default 4
        The highest order, 0 <= p_max <= 8 (``P_MAX``).

    Returns
    -------
    tuple of fractions.Fraction
        (E B^0, ..., E B^p_max).

    Raises
    ------
    ParameterError
        When the data are not finite 1-D numbers, or n or p_max is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (14)-(15) and Appendix 10.1 (:doc:`/papers/vollmer`, secs. 3 and 4.5).
    """
    x = _check_data(data)
    n = _check_n(n, x.size)
    c = b_scale(x.size, n, sigma_x)
    return tuple(c**p * m for p, m in enumerate(subset_sum_moments(x, n, replace, p_max)))


def minibatch_term_cumulants(data: ArrayLike, n: int, replace: bool = False, sigma_x: float = 1.0,
                             p_max: int = 4) -> tuple[Fraction, ...]:
    """The exact cumulants of the toy's minibatch term B; kappa_2(B) = Var(B) of eq. (16).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data set, finite numbers.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        tau holds n iid uniform indices (True) or is a uniform n-subset (False).
    sigma_x : float, default 1.0
        The data's standard deviation, > 0.
    p_max : int, default 4
        The highest order, 0 <= p_max <= 8 (``P_MAX``).

    Returns
    -------
    tuple of fractions.Fraction
        (kappa_1(B), ..., kappa_p_max(B)).

    Raises
    ------
    ParameterError
        When the data are not finite 1-D numbers, or n or p_max is out of range.
    """
    return tuple(cumulants_from_raw(minibatch_term_moments(data, n, replace, sigma_x, p_max)))


def var_B(data: ArrayLike, n: int, replace: bool = False, sigma_x: float = 1.0) -> Fraction:
    """Var(B) exactly: N(N - 1)/n (with replacement) or N(N - n)/n (without) times s_X^2 / (4 sigma_x^4).

    Parameters
    ----------
    data : array_like, shape (N,) or (N, 1)
        The data set, finite numbers.
    n : int
        The minibatch size, 1 <= n <= N.
    replace : bool, default False
        tau holds n iid uniform indices (True) or is a uniform n-subset (False).
    sigma_x : float, default 1.0
        The data's standard deviation, > 0.

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    ParameterError
        When the data are not finite 1-D numbers, or n or p_max is out of range.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (16) (:doc:`/papers/vollmer`, sec. 3).
    """
    return minibatch_term_cumulants(data, n, replace, sigma_x, 2)[1]


# ------------------------------------------------------------------------------------------ symbolic forms

@cache
def raw_moment_expr(p: int, replace: bool) -> sp.Expr:
    """E S^p as a sympy expression in N, n and the power sums p1..p_p (cached).

    Parameters
    ----------
    p : int
        The order, 0 <= p <= 8.
    replace : bool
        With replacement or without.

    Returns
    -------
    sympy.Expr

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.1 (:doc:`/papers/vollmer`, sec. 4.5).
    """
    p = check_int("p", p, 0, P_MAX)
    ps = (N_SYM,) + POWER_SUM_SYMBOLS[:p]
    return _collect_power_sums(raw_moments_from_power_sums(ps, N_SYM, n_SYM, bool(replace), p)[p], p)


def _collect_power_sums(expr: sp.Expr, p: int) -> sp.Expr:
    """expr as sum over power-sum monomials with factored coefficients (rational in N and n)."""
    gens = POWER_SUM_SYMBOLS[:max(p, 1)]
    poly = sp.Poly(sp.expand(expr), *gens)
    return sp.Add(*[sp.factor(c) * sp.Mul(*[g**e for g, e in zip(gens, mon, strict=True)])
                    for mon, c in poly.terms()])


@cache
def cumulant_expr(p: int, replace: bool) -> sp.Expr:
    """kappa_p(S) as a sympy expression in N, n and the power sums p1..p_p (cached).

    Parameters
    ----------
    p : int
        The order, 1 <= p <= 8.
    replace : bool
        With replacement or without.

    Returns
    -------
    sympy.Expr
    """
    p = check_int("p", p, 1, P_MAX)
    raws = [raw_moment_expr(q, replace) for q in range(p + 1)]
    return _collect_power_sums(cumulants_from_raw(raws)[p - 1], p)


def paper_newton_moments() -> dict[str, sp.Expr]:
    """The paper's Appendix 10.1 distinct-index moments via Newton's identities (without replacement), for checks.

    e_k elementary symmetric polynomials of the data; Mom_{2,1} = 2 e2/(N(N-1)), Mom_{2,2} = p2/N,
    Mom_{3,1} = 6 e3/(N(N-1)(N-2)), Mom_{3,2} = (p1 p2 - p3)/(N(N-1)), Mom_{3,3} = p3/N;
    E S^2 = n(n-1) Mom_{2,1} + n Mom_{2,2}, E S^3 = (n)_3 Mom_{3,1} + 3 n(n-1) Mom_{3,2} + n Mom_{3,3}.

    Returns
    -------
    dict of str to sympy.Expr
        "ES2" and "ES3", in N, n and the power sums.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Appendix 10.1 (:doc:`/papers/vollmer`, sec. 4.5).
    """
    p1, p2, p3 = POWER_SUM_SYMBOLS[:3]
    N, n = N_SYM, n_SYM
    e1 = p1
    e2 = (e1 * p1 - p2) / 2
    e3 = (-e1 * p2 + e2 * p1 + p3) / 3
    m21, m22 = 2 * e2 / (N * (N - 1)), p2 / N
    m31, m32, m33 = 6 * e3 / (N * (N - 1) * (N - 2)), (p1 * p2 - p3) / (N * (N - 1)), p3 / N
    return {"ES2": n * (n - 1) * m21 + n * m22,
            "ES3": n * (n - 1) * (n - 2) * m31 + 3 * n * (n - 1) * m32 + n * m33}


__all__ = [
    "N_SYM", "POWER_SUM_SYMBOLS", "P_MAX", "b_scale", "cumulant_expr", "cumulants_from_raw",
    "distinct_index_sum", "falling", "minibatch_term_cumulants", "minibatch_term_moments", "n_SYM",
    "paper_newton_moments", "power_sums", "raw_from_cumulants", "raw_moment_expr", "raw_moments_from_power_sums",
    "set_partitions", "subset_sum_cumulants", "subset_sum_moments", "var_B", "with_replacement_moments_via_cumulants",
]
