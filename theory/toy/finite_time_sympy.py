"""The sympy derivation behind :mod:`theory.toy.finite_time` (Vollmer et al. 2016, Section 2.2, eq. 22, eq. 68 and
Appendix 10; re-derived in docs/papers/vollmer.md sec. 4).

The moments E theta_k^p (p <= 4) of theta' = a theta + h B + s xi are polynomials in x = a^k with coefficients in
mu, delta_0 and the cumulants c_2, c_3, c_4 of the step noise (:func:`moment_polynomials`); the cross moments are
the kernels :func:`cross_kernel_22` and :func:`cross_kernel_11`. Sums over k < M reduce to the geometric primitives
sum_k a^{lk} and sum_{i<j} a^{li} a^{m(j-i)} (:func:`geom_sum`, :func:`pair_sum`), evaluated once in closed form with
z = a^M kept as a symbol (:func:`derivation`) and lambdified to mpmath (:func:`lambdified`). Module
:mod:`theory.toy.finite_time` states the closed forms and evaluates them; :mod:`theory.toy.data_average` averages
them over random data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import sympy as sp

from simulate.validation import ParameterError, check_int

QUANTITIES = ("es2", "es2sq", "es1", "es1sq", "mse2", "mse1", "ere_num", "ere")


DEFAULT_DPS = 60


a = sp.Symbol("a", real=True)  #: 1 - A h


z = sp.Symbol("z", real=True)  #: a^M


M = sp.Symbol("M", positive=True, integer=True)  #: number of states averaged, theta_0 .. theta_{M-1}


x = sp.Symbol("x", real=True)  #: a^k (moments at step k)


y = sp.Symbol("y", real=True)  #: a^(j-i) (cross moments)


mu = sp.Symbol("mu", real=True)  #: E(B)/A = mu_p


th0 = sp.Symbol("theta_0", real=True)  #: deterministic initial state


c2 = sp.Symbol("c_2", nonnegative=True)  #: kappa_2(zeta) = h^2 Var B + s^2


c3 = sp.Symbol("c_3", real=True)  #: kappa_3(zeta) = h^3 kappa_3(B)


c4 = sp.Symbol("c_4", real=True)  #: kappa_4(zeta) = h^4 kappa_4(B)


sp2 = sp.Symbol("sigma_p2", positive=True)  #: posterior variance 1/(2A)


#: Argument order of every lambdified closed form in M.
ARGS = (a, z, M, mu, th0, c2, c3, c4, sp2)


#: Argument order of the closed forms in k.
K_ARGS = (a, x, mu, th0, c2, c3, c4)


_p, _q = sp.symbols("p q", positive=True)


_i, _j, _k = sp.symbols("i j k", integer=True, nonnegative=True)


_PM, _QM = sp.symbols("P_M Q_M", positive=True)


def _generic_branch(expr: sp.Expr) -> sp.Expr:
    """Replace every Piecewise by its last branch (the generic case: ratios != 1)."""
    while expr.has(sp.Piecewise):
        expr = expr.replace(lambda e: isinstance(e, sp.Piecewise), lambda e: e.args[-1].expr)
    return expr


def _split_M_powers(expr: sp.Expr, base: sp.Symbol, sym: sp.Symbol) -> sp.Expr:
    """base**(c M + d) -> sym**c * base**d, so that base**M can be replaced by a symbol."""
    def target(e: sp.Basic) -> bool:
        """A power of ``base`` whose exponent involves M."""
        return isinstance(e, sp.Pow) and e.base == base and e.exp.has(M)

    def repl(e: sp.Pow) -> sp.Expr:
        """Split the exponent c M + d."""
        c = sp.expand(e.exp).coeff(M)
        return sym**c * base ** sp.expand(e.exp - c * M)

    return expr.replace(target, repl)


@cache
def geometric_primitives() -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """The geometric sums G, J, H every time average reduces to, derived with sympy.summation (new; cached).

    G(q) = sum_{k=0}^{M-1} q^k,  J(q) = sum_{j=1}^{M-1} j q^j,  H(p, q) = sum_{0<=i<j<=M-1} p^i q^(j-i),
    as Piecewise expressions in p, q, M with p^M, q^M written as the symbols P_M, Q_M. (The paper used Mathematica,
    Appendix 10.1.)

    Returns
    -------
    tuple of sympy.Expr
        (G, J, H).
    """
    G = sp.summation(_q**_k, (_k, 0, M - 1))
    J = sp.summation(_j * _q**_j, (_j, 1, M - 1))
    H = sp.summation(sp.summation(_p**_i * _q ** (_j - _i), (_i, 0, _j - 1)), (_j, 1, M - 1))
    out = []
    for e in (G, J, H):
        e = _split_M_powers(_split_M_powers(e, _p, _PM), _q, _QM)
        out.append(e)
    return tuple(out)


def _instantiate(expr: sp.Expr, l_p: int | None, l_q: int | None) -> sp.Expr:
    """Substitute p = a^l_p, q = a^l_q (exponent 0: ratio 1, which selects the special Piecewise branch)."""
    subs = {}
    if l_p is not None:
        subs.update({_p: a**l_p, _PM: z**l_p})
    if l_q is not None:
        subs.update({_q: a**l_q, _QM: z**l_q})
    return sp.together(_generic_branch(expr.subs(subs)))


@cache
def geom_sum(ell: int) -> sp.Expr:
    """sum_{k=0}^{M-1} a^{ell k} in closed form, with z = a^M (cached).

    Parameters
    ----------
    ell : int
        The power of a.

    Returns
    -------
    sympy.Expr
        In a, z, M.
    """
    G, _, _ = geometric_primitives()
    return _instantiate(G, None, ell)


@cache
def pair_sum(ell: int, m: int) -> sp.Expr:
    """sum_{0 <= i < j <= M-1} a^{ell i} a^{m (j - i)} in closed form, with z = a^M (cached).

    Parameters
    ----------
    ell : int
        The power of a at the earlier index.
    m : int
        The power of a on the gap j - i.

    Returns
    -------
    sympy.Expr
        In a, z, M.
    """
    _, J, H = geometric_primitives()
    if ell == m:
        return _instantiate(J, None, m)
    return _instantiate(H, ell, m)


@cache
def moment_polynomials() -> tuple[dict[int, sp.Expr], ...]:
    """E theta_k^p, p = 0..4, as polynomials in x = a^k (the cumulant form of (C.2)-(C.5); cached).

    Returns
    -------
    tuple of dict
        Per p, {l: the coefficient of a^{l k}}, coefficients in a, mu, theta_0, c_2, c_3, c_4.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), (C.2)-(C.5) (:doc:`/papers/vollmer`, sec. 4.2).
    """
    d = (th0 - mu) * x
    K2 = c2 * (1 - x**2) / (1 - a**2)
    K3 = c3 * (1 - x**3) / (1 - a**3)
    K4 = c4 * (1 - x**4) / (1 - a**4)
    ED = [sp.Integer(1), d, d**2 + K2, d**3 + 3 * d * K2 + K3, d**4 + 6 * d**2 * K2 + 4 * d * K3 + K4 + 3 * K2**2]
    out = []
    for p in range(5):
        e = sp.expand(sum(sp.binomial(p, q) * mu ** (p - q) * ED[q] for q in range(p + 1)))
        poly = sp.Poly(e, x)
        out.append({mon[0]: c for mon, c in poly.terms()})
    return tuple(out)


def cross_kernel_22(yy: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(alpha, beta, gamma) in E theta_i^2 theta_j^2 = alpha E theta_i^2 + beta E theta_i^3 + gamma E theta_i^4.

    Parameters
    ----------
    yy : sympy.Expr
        a^(j - i).

    Returns
    -------
    tuple of sympy.Expr
        (alpha, beta, gamma).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), (C.7), corrected: it carries (1 - Ah)^{2(j-i)} = yy^2 on E theta_i^4
    (:doc:`/papers/vollmer`, secs. 4.3 and 11).
    """
    vinf = c2 / (1 - a**2)
    return vinf * (1 - yy**2) + mu**2 * (1 - yy) ** 2, 2 * mu * (1 - yy) * yy, yy**2


def cross_kernel_11(yy: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(beta, gamma) in E theta_i theta_j = beta E theta_i + gamma E theta_i^2.

    Parameters
    ----------
    yy : sympy.Expr
        a^(j - i).

    Returns
    -------
    tuple of sympy.Expr
        (beta, gamma).

    References
    ----------
    :doc:`/papers/vollmer`, sec. 4.3 (replaces the paper's (C.6)).
    """
    return mu * (1 - yy), yy


#: The data-dependent symbols; every closed form is a polynomial in them (weights 1, 2, 3, 4 in the data).
_DATA_SYMBOLS = (mu, c2, c3, c4)


_ONE = (0, 0, 0, 0)


def _as_polydict(expr: sp.Expr) -> dict[tuple[int, int, int, int], sp.Expr]:
    """expr (polynomial in mu, c_2, c_3, c_4) as {exponents: coefficient}."""
    poly = sp.Poly(sp.expand(expr), *_DATA_SYMBOLS)
    return dict(poly.terms())


def _sk_add(P: dict, Q: dict, scale: sp.Expr | int = 1) -> dict:
    """P + scale * Q (skeletons or polydicts)."""
    out = dict(P)
    for key, val in Q.items():
        out[key] = out.get(key, sp.Integer(0)) + scale * val
    return out


def _sk_mul(P: dict, pd: dict, shift: int = 0) -> dict:
    """Skeleton P times the polynomial pd (in the data symbols) times M^(-shift)."""
    out: dict = {}
    for (m1, k_, prim), v1 in P.items():
        for m2, v2 in pd.items():
            key = (tuple(u + w for u, w in zip(m1, m2, strict=True)), k_ + shift, prim)
            out[key] = out.get(key, sp.Integer(0)) + v1 * v2
    return out


@cache
def _moment_polydicts() -> tuple[dict[int, dict], ...]:
    """moment_polynomials with each coefficient split into a polydict in the data symbols."""
    return tuple({ell: _as_polydict(c) for ell, c in polys.items()} for polys in moment_polynomials())


def _pair_total(kernel: Sequence[sp.Expr], first_p: int) -> dict:
    """Skeleton of sum_{i<j} sum_t kernel_t(a^{j-i}) E theta_i^{first_p + t}."""
    polys = _moment_polydicts()
    total: dict = {}
    for t, ker in enumerate(kernel):
        kpoly = sp.Poly(sp.expand(ker), y)
        for (m,), cm in kpoly.terms():
            cm_pd = _as_polydict(cm)
            for ell, cl in polys[first_p + t].items():
                prim = ("H", ell, m)
                for mon1, v1 in cm_pd.items():
                    for mon2, v2 in cl.items():
                        key = (tuple(u + w for u, w in zip(mon1, mon2, strict=True)), 0, prim)
                        total[key] = total.get(key, sp.Integer(0)) + v1 * v2
    return total


def _single_total(p: int) -> dict:
    """Skeleton of sum_{k<M} E theta_k^p."""
    return {(mon, 0, ("G", ell)): c for ell, cl in _moment_polydicts()[p].items() for mon, c in cl.items()}


@cache
def skeletons() -> dict[str, dict]:
    """The skeleton of every quantity: its terms as (data monomial, power of 1/M, geometric primitive) (cached).

    Returns
    -------
    dict of str to dict
        Per quantity, {(monomial, k, primitive): coefficient}.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (22) / (C.1) and eq. (68) (:doc:`/papers/vollmer`, secs. 4.2-4.3).
    """
    sum1, sum2, sum4 = _single_total(1), _single_total(2), _single_total(4)
    pair22 = _pair_total(cross_kernel_22(y), 2)
    pair11 = _pair_total(cross_kernel_11(y), 1)
    one = {(_ONE, 0, ("1",)): sp.Integer(1)}
    target = {(2, 0, 0, 0): sp.Integer(1), _ONE: sp2}
    mu_pd = {(1, 0, 0, 0): sp.Integer(1)}
    unit = {_ONE: sp.Integer(1)}
    es2 = _sk_mul(sum2, unit, 1)
    es2sq = _sk_add(_sk_mul(sum4, unit, 2), _sk_mul(pair22, unit, 2), 2)
    es1 = _sk_mul(sum1, unit, 1)
    es1sq = _sk_add(_sk_mul(sum2, unit, 2), _sk_mul(pair11, unit, 2), 2)
    ere_num = _sk_add(es2, es1sq, -1)
    return {
        "es2": es2, "es2sq": es2sq, "es1": es1, "es1sq": es1sq,
        "mse2": _sk_add(_sk_add(es2sq, _sk_mul(es2, target), -2), _sk_mul(one, _pd_square(target))),
        "mse1": _sk_add(_sk_add(es1sq, _sk_mul(es1, mu_pd), -2), _sk_mul(one, _pd_square(mu_pd))),
        "ere_num": ere_num, "ere": _sk_add(_sk_mul(ere_num, {_ONE: 1 / sp2}), one, -1),
    }


def _pd_square(pd: dict) -> dict:
    """The square of a polydict."""
    out: dict = {}
    for m1, v1 in pd.items():
        for m2, v2 in pd.items():
            key = tuple(u + w for u, w in zip(m1, m2, strict=True))
            out[key] = out.get(key, sp.Integer(0)) + v1 * v2
    return out


def _primitive(prim: tuple) -> sp.Expr:
    """The closed form of a skeleton primitive ('1', ('G', l) or ('H', l, m))."""
    if prim[0] == "1":
        return sp.Integer(1)
    if prim[0] == "G":
        return geom_sum(prim[1])
    return pair_sum(prim[1], prim[2])


@cache
def _primitive_expansion(prim: tuple) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(p0, p1, p2) with primitive(M, z = 0) = p0 + p1 M + p2 M^2 (exact: the z-free part is a polynomial)."""
    e = _primitive(prim).xreplace({z: 0})
    d1 = sp.diff(e, M)
    return sp.simplify(e.subs(M, 0)), sp.simplify(d1.subs(M, 0)), sp.simplify(sp.diff(d1, M).subs(M, 0) / 2)


def _monomial(mon: tuple[int, ...]) -> sp.Expr:
    """mu^i c_2^j c_3^k c_4^l."""
    return sp.Mul(*[s_**e for s_, e in zip(_DATA_SYMBOLS, mon, strict=True)])


@cache
def derivation_polys() -> dict[str, dict]:
    """Every closed form in M as a polynomial in the data symbols mu, c_2, c_3, c_4 (cached; :func:`derivation`).

    Returns
    -------
    dict of str to dict
        Per quantity, {(i, j, k, l): the coefficient of mu^i c_2^j c_3^k c_4^l, in a, z, M, theta_0, sigma_p^2}.
    """
    out = {}
    for q, sk in skeletons().items():
        pd: dict = {}
        for (mon, k_, prim), c in sk.items():
            pd[mon] = pd.get(mon, sp.Integer(0)) + c * M ** (-k_) * _primitive(prim)
        out[q] = pd
    return out


@cache
def derivation() -> dict[str, sp.Expr]:
    """All closed forms in M, in the symbols ``ARGS`` (a, z, M, mu, theta_0, c_2, c_3, c_4, sigma_p^2), derived once.

    es2 = E S2, es2sq = E S2^2, es1 = E S1, es1sq = E S1^2 with S2 = (1/M) sum_{k<M} theta_k^2, S1 likewise;
    mse2 = E (S2 - mu^2 - sigma_p^2)^2 (eq. 22, C.1); mse1 = E (S1 - mu)^2; ere_num = E[S2 - S1^2];
    ere = ere_num / sigma_p^2 - 1 (eq. 68).

    Returns
    -------
    dict of str to sympy.Expr
        Keyed by quantity.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (22) / (C.1) and eq. (68) (:doc:`/papers/vollmer`, secs. 4.2-4.3).
    """
    return {q: sp.Add(*[_monomial(mon) * c for mon, c in pd.items()]) for q, pd in derivation_polys().items()}


def _check_quantity(quantity: str) -> str:
    """quantity in QUANTITIES."""
    if quantity not in QUANTITIES:
        raise ParameterError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    return quantity


@cache
def lambdified(quantity: str) -> Callable:
    """One closed form in M as an mpmath function of ``ARGS`` (cached).

    Parameters
    ----------
    quantity : str
        'es2', 'es2sq', 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num' or 'ere' (``QUANTITIES``).

    Returns
    -------
    callable
        f(a, z, M, mu, theta_0, c_2, c_3, c_4, sigma_p^2).

    Raises
    ------
    ParameterError
        When quantity is unknown.
    """
    return sp.lambdify(ARGS, derivation()[_check_quantity(quantity)], modules="mpmath")


@cache
def _lambdified_moment(p: int) -> Callable:
    """mpmath callable f(*K_ARGS) = E theta_k^p."""
    e = sp.Add(*[c * x**ell for ell, c in moment_polynomials()[p].items()])
    return sp.lambdify(K_ARGS, e, modules="mpmath")


@cache
def _lambdified_kernel(p: int) -> Callable:
    """mpmath callable (y, a, mu, c_2) -> the cross-moment kernel coefficients (p = 1 or 2)."""
    kern = cross_kernel_22(y) if p == 2 else cross_kernel_11(y)
    return sp.lambdify((y, a, mu, c2), list(kern), modules="mpmath")


@cache
def expansion_coefficients(quantity: str) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(e0, e1, e2) with quantity(M) = e0 + e1/M + e2/M^2 + O(M^2 a^M), exactly (new; cached).

    Dropping the terms in z = a^M, every primitive is a polynomial of degree <= 2 in M; a skeleton term
    c M^(-k) (p0 + p1 M + p2 M^2) contributes c p_j to the coefficient of M^(j - k).  Positive powers cancel.

    Parameters
    ----------
    quantity : str
        'es2', 'es2sq', 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num' or 'ere' (``QUANTITIES``).

    Returns
    -------
    tuple of sympy.Expr
        (e0, e1, e2) in the symbols ``ARGS`` (z and M absent).

    Raises
    ------
    ParameterError
        When quantity is unknown.

    References
    ----------
    :doc:`/papers/vollmer`, sec. 4.4.
    """
    buckets: dict[int, list] = {}
    for (mon, k_, prim), c in skeletons()[_check_quantity(quantity)].items():
        for j, pj in enumerate(_primitive_expansion(prim)):
            if pj != 0:
                buckets.setdefault(j - k_, []).append(_monomial(mon) * c * pj)
    return tuple(sp.Add(*buckets.get(-d, [])) for d in range(3))


@cache
def _lambdified_expansion(quantity: str) -> tuple[Callable, ...]:
    """mpmath callables of (e0, e1, e2)."""
    return tuple(sp.lambdify(ARGS, e, modules="mpmath") for e in expansion_coefficients(quantity))


@cache
def data_polynomial(quantity: str) -> tuple[tuple[tuple[int, int, int, int], Callable], ...]:
    """A quantity as a sum over monomials mu^i c_2^j c_3^k c_4^l of coefficients in (a, z, M, theta_0, sigma_p^2) (new).

    Each quantity has weighted degree <= 4 in (mu, c_2, c_3, c_4) with weights (1, 2, 3, 4). Used for the exact
    expectation over random data (Appendix 10.2; :mod:`theory.toy.data_average`).

    Parameters
    ----------
    quantity : str
        'es2', 'es2sq', 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num' or 'ere' (``QUANTITIES``).

    Returns
    -------
    tuple of (tuple of int, callable)
        ((i, j, k, l), the coefficient as an mpmath function of ``ARGS``), the non-zero ones in order.

    Raises
    ------
    ParameterError
        When quantity is unknown.
    """
    pd = derivation_polys()[_check_quantity(quantity)]
    return tuple((mon, sp.lambdify(ARGS, c, modules="mpmath")) for mon, c in sorted(pd.items()) if c != 0)


def clear_derivation_cache() -> None:
    """Forget every cached derivation and lambdified form (e.g. after monkeypatching a kernel in a test)."""
    for f in (geometric_primitives, geom_sum, pair_sum, moment_polynomials, _moment_polydicts, skeletons,
              _primitive_expansion, derivation_polys, derivation, lambdified,
              _lambdified_moment, _lambdified_kernel, expansion_coefficients, _lambdified_expansion, data_polynomial):
        f.cache_clear()


def _mpf(v: Any) -> mpmath.mpf:
    """An exact conversion of a Fraction, sympy Rational, int or float to mpmath (current precision)."""
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    if isinstance(v, sp.Rational):
        return mpmath.mpf(int(v.p)) / int(v.q)
    return mpmath.mpf(v)




def _check_M(M_: int) -> int:
    """M >= 1 (an int, or an integral float such as 1e9)."""
    if isinstance(M_, float) and M_.is_integer():
        M_ = int(M_)
    return check_int("M", M_, 1)


def _check_dps(dps: int) -> int:
    """20 <= dps <= 10000."""
    return check_int("dps", dps, 20, 10_000)


def _gauss_moment(j: int) -> int:
    """E xi^j for xi ~ N(0, 1): 1, 0, 1, 0, 3, ..."""
    return 0 if j % 2 else math.prod(range(1, j, 2))


__all__ = ["clear_derivation_cache", "cross_kernel_11", "cross_kernel_22", "data_polynomial", "derivation",
           "derivation_polys", "expansion_coefficients", "geom_sum", "geometric_primitives", "lambdified",
           "moment_polynomials", "pair_sum", "skeletons"]
