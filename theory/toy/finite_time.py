"""Exact finite-time theory of Euler / SGLD / mSGLD on the 1-D Gaussian toy model (Vollmer et al. 2016,
Section 2.2, eq. 22, eq. 68 and Appendix 10; re-derived in ../shared/notes/004b.md section 8).

One step of every method is theta' = a theta + h B + s xi with a = 1 - A h, B_k iid (a fresh minibatch each
step; Euler: B constant), xi ~ N(0, 1), and s = sqrt(h) (Euler, SGLD) or sqrt(h) (1 - h Var(B)/2) (mSGLD, eq. 20).
theta_0 is deterministic.

**Closed forms (sympy, derived once, evaluated with mpmath).**  With mu = E(B)/A = mu_p, delta_0 = theta_0 - mu
and zeta = h (B - E B) + s xi (cumulants c_2 = h^2 Var B + s^2, c_3 = h^3 kappa_3(B), c_4 = h^4 kappa_4(B)),
theta_k = mu + D_k where D_k has mean a^k delta_0 and cumulants c_p (1 - a^{pk}) / (1 - a^p) (notes 8.2), so
E theta_k^p (p <= 4) is a polynomial in x = a^k.  The cross moments (notes 8.3; they replace the paper's (C.6)-(C.7),
whose printed (1-Ah)^{j-i} should read (1-Ah)^{2(j-i)}) are, with y = a^{j-i} and V_inf = c_2 / (1 - a^2),

    E theta_i^2 theta_j^2 = (V_inf (1 - y^2) + mu^2 (1 - y)^2) E theta_i^2
                            + 2 mu (1 - y) y E theta_i^3 + y^2 E theta_i^4,
    E theta_i theta_j     = mu (1 - y) E theta_i + y E theta_i^2.

So every sum over k < M is a combination of sum_k a^{lk} and sum_{i<j} a^{li} a^{m(j-i)}: sympy evaluates these
finite geometric sums in closed form once, with z = a^M kept as a symbol, and the results are lambdified to mpmath.
The derivation is generic (the method enters only through the numbers c_2, c_3, c_4), so it runs once per process
(about 1-2 s) and is cached.  Evaluating at M = 10^9 costs the same as at M = 10 (about 2 ms).  Near the plateau
MSE2 ~ 1e-8 comes from terms ~ 1, so the default precision is 60 digits; results are mpmath numbers at that
precision (do further arithmetic inside ``mpmath.workdps``, or convert with float()).

**Cross-checks.** :meth:`ToyFiniteTime.recursion` advances the augmented 15-state linear recursion of notes 8.3
(raw moments E B^j, no cumulants) by a matrix power in O(log M); :meth:`ToyFiniteTime.enumeration` sums the
O(M^2) double sum of E theta_i^2 theta_j^2 by propagating conditional moments step by step.

**Random data** (Appendix 10.2): :func:`expected_over_data` averages MSE2, MSE1, E S2 or the ERE over data sets
x_i ~ iid N(theta_dag, sigma_X^2) exactly: for fixed (h, n, M) each quantity is a polynomial in mu, c_2, c_3, c_4,
which are polynomials in the power sums p_1..p_4 of the data, and E_X of a product of power sums follows from the
Gaussian moments by a sum over set partitions.  :func:`expected_over_data_mc` is the Monte Carlo version (for checks).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from numpy.typing import ArrayLike

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive, check_step_size
from theory.noise import subset_moments as sm

METHODS = ("euler", "sgld", "msgld")
QUANTITIES = ("es2", "es2sq", "es1", "es1sq", "mse2", "mse1", "ere_num", "ere")
DEFAULT_DPS = 60

# ----------------------------------------------------------------------------------------------- symbols

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


# ----------------------------------------------------------------------------------------------- derivation

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
    """(G, J, H) derived with sympy.summation (new; the paper used Mathematica, App. 10.1):

    G(q) = sum_{k=0}^{M-1} q^k,  J(q) = sum_{j=1}^{M-1} j q^j,  H(p, q) = sum_{0<=i<j<=M-1} p^i q^(j-i),
    as Piecewise expressions in p, q, M with p^M, q^M written as the symbols P_M, Q_M.
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
    """sum_{k=0}^{M-1} a^{ell k} in closed form (z = a^M)."""
    G, _, _ = geometric_primitives()
    return _instantiate(G, None, ell)


@cache
def pair_sum(ell: int, m: int) -> sp.Expr:
    """sum_{0 <= i < j <= M-1} a^{ell i} a^{m (j - i)} in closed form (z = a^M)."""
    _, J, H = geometric_primitives()
    if ell == m:
        return _instantiate(J, None, m)
    return _instantiate(H, ell, m)


@cache
def moment_polynomials() -> tuple[dict[int, sp.Expr], ...]:
    """E theta_k^p, p = 0..4, as {l: coefficient of a^{l k}} (notes 004b 8.2, cumulant form of (C.2)-(C.5))."""
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
    """(alpha, beta, gamma) in E theta_i^2 theta_j^2 = alpha E theta_i^2 + beta E theta_i^3 + gamma E theta_i^4,
    with yy = a^(j-i) (notes 8.3; the paper's (C.7) carries (1-Ah)^{2(j-i)} = yy^2 on E theta_i^4)."""
    vinf = c2 / (1 - a**2)
    return vinf * (1 - yy**2) + mu**2 * (1 - yy) ** 2, 2 * mu * (1 - yy) * yy, yy**2


def cross_kernel_11(yy: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(beta, gamma) in E theta_i theta_j = beta E theta_i + gamma E theta_i^2, yy = a^(j-i) (notes 8.3)."""
    return mu * (1 - yy), yy


#: The data-dependent symbols; every closed form is a polynomial in them (weights 1, 2, 3, 4 in the data).
_DATA_SYMBOLS = (mu, c2, c3, c4)
_ONE = (0, 0, 0, 0)

# A closed form is kept as a *skeleton*: {(monomial, k, primitive): coefficient}, meaning
#   sum  mu^i c_2^j c_3^k' c_4^l * coefficient * M^(-k) * primitive(M, z),
# with primitive ("1",), ("G", l) = sum_k a^{lk} or ("H", l, m) = sum_{i<j} a^{li} a^{m(j-i)}.  Coefficients
# depend on a, theta_0, sigma_p^2 only.  Substituting the primitives' closed forms gives the exact quantity;
# substituting their expansions in M gives the exact 1/M expansion.


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
    """The skeleton of every quantity (see the comment above): eq. (22)/(C.1), eq. (68), notes 8.2-8.3."""
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
    """Every closed form in M as {(i, j, k, l): coefficient} for mu^i c_2^j c_3^k c_4^l (coefficients in a, z, M,
    theta_0, sigma_p^2); see :func:`derivation`."""
    out = {}
    for q, sk in skeletons().items():
        pd: dict = {}
        for (mon, k_, prim), c in sk.items():
            pd[mon] = pd.get(mon, sp.Integer(0)) + c * M ** (-k_) * _primitive(prim)
        out[q] = pd
    return out


@cache
def derivation() -> dict[str, sp.Expr]:
    """All closed forms in M (symbols :data:`ARGS`), derived once (eq. 22 / (C.1), eq. 68, notes 8.2-8.3).

    es2 = E S2, es2sq = E S2^2, es1 = E S1, es1sq = E S1^2 with S2 = (1/M) sum_{k<M} theta_k^2, S1 likewise;
    mse2 = E (S2 - mu^2 - sigma_p^2)^2 (eq. 22, C.1); mse1 = E (S1 - mu)^2; ere_num = E[S2 - S1^2];
    ere = ere_num / sigma_p^2 - 1 (eq. 68).
    """
    return {q: sp.Add(*[_monomial(mon) * c for mon, c in pd.items()]) for q, pd in derivation_polys().items()}


def _check_quantity(quantity: str) -> str:
    """quantity in QUANTITIES."""
    if quantity not in QUANTITIES:
        raise ParameterError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
    return quantity


@cache
def lambdified(quantity: str) -> Callable:
    """mpmath callable f(*ARGS) of one closed form in M."""
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
    """(e0, e1, e2) with quantity(M) = e0 + e1/M + e2/M^2 + O(M^2 a^M), exactly (new; cf. notes 8.4).

    Dropping the terms in z = a^M, every primitive is a polynomial of degree <= 2 in M; a skeleton term
    c M^(-k) (p0 + p1 M + p2 M^2) contributes c p_j to the coefficient of M^(j - k).  Positive powers cancel.
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
    """quantity = sum over monomials mu^i c_2^j c_3^k c_4^l of coefficient(a, z, M, theta_0, sigma_p^2) (new).

    Each quantity has weighted degree <= 4 in (mu, c_2, c_3, c_4) with weights (1, 2, 3, 4).  Used for the
    exact expectation over random data (Appendix 10.2).
    """
    pd = derivation_polys()[_check_quantity(quantity)]
    return tuple((mon, sp.lambdify(ARGS, c, modules="mpmath")) for mon, c in sorted(pd.items()) if c != 0)


def clear_derivation_cache() -> None:
    """Forget every cached derivation and lambdified form (e.g. after monkeypatching a kernel in a test)."""
    for f in (geometric_primitives, geom_sum, pair_sum, moment_polynomials, _moment_polydicts, skeletons,
              _primitive_expansion, derivation_polys, derivation, lambdified,
              _lambdified_moment, _lambdified_kernel, expansion_coefficients, _lambdified_expansion, data_polynomial):
        f.cache_clear()


# ----------------------------------------------------------------------------------------------- numerics

def _mpf(v: Any) -> mpmath.mpf:
    """An exact conversion of a Fraction, sympy Rational, int or float to mpmath (current precision)."""
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    if isinstance(v, sp.Rational):
        return mpmath.mpf(int(v.p)) / int(v.q)
    return mpmath.mpf(v)


def _check_method(method: str) -> str:
    """method in METHODS."""
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    return method


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


@dataclass(frozen=True)
class ToyFiniteTime:
    """Exact finite-time moments of one toy chain theta' = a theta + h B + s xi (Vollmer et al. Section 2, App. 10).

    Build it with :func:`toy_finite_time` (from data) or :func:`from_sampler`.  ``b`` holds E B^0..E B^4 exactly
    (mpmath numbers at ``dps`` digits); for Euler B is the constant E(B).
    """

    method: str
    A: mpmath.mpf
    h: mpmath.mpf
    b: tuple
    theta0: mpmath.mpf
    dps: int = DEFAULT_DPS

    def __post_init__(self) -> None:
        """Validate method, precision, moments, step size (h < 2/A) and theta0."""
        _check_method(self.method)
        _check_dps(self.dps)
        if len(self.b) != 5 or self.b[0] != 1:
            raise ParameterError("b must hold the raw moments (E B^0 = 1, E B^1, ..., E B^4)")
        check_step_size(float(self.h), 2.0 / float(self.A), "stability of the toy chain, h < 2/A")
        if not mpmath.isfinite(self.theta0):
            raise ParameterError(f"theta0 must be finite, got {self.theta0!r}")
        if self.method == "euler" and abs(self.var_B) > mpmath.mpf(10) ** (-self.dps // 2) * (1 + self.b[2]):
            raise ParameterError("euler needs a constant B (Var(B) = 0): use n = N without replacement")

    # ----- derived constants (eq. 14-16, 20)
    @property
    def a(self) -> mpmath.mpf:
        """1 - A h."""
        with mpmath.workdps(self.dps):
            return 1 - self.A * self.h

    @property
    def var_B(self) -> mpmath.mpf:
        """Var(B), eq. (16)."""
        with mpmath.workdps(self.dps):
            return self.b[2] - self.b[1] ** 2

    @property
    def cumulants_B(self) -> tuple:
        """(kappa_1, kappa_2, kappa_3, kappa_4) of B."""
        with mpmath.workdps(self.dps):
            return tuple(+v for v in sm.cumulants_from_raw(list(self.b)))

    @property
    def noise_var(self) -> mpmath.mpf:
        """s^2: h (Euler, SGLD) or h (1 - h Var(B)/2)^2 (mSGLD, eq. 20)."""
        with mpmath.workdps(self.dps):
            if self.method == "msgld":
                return self.h * (1 - self.h * self.var_B / 2) ** 2
            return +self.h

    @property
    def posterior_mean(self) -> mpmath.mpf:
        """mu_p = E(B)/A, eq. (12)/(17)."""
        with mpmath.workdps(self.dps):
            return self.b[1] / self.A

    @property
    def posterior_var(self) -> mpmath.mpf:
        """sigma_p^2 = 1/(2A), eq. (12)."""
        with mpmath.workdps(self.dps):
            return 1 / (2 * self.A)

    @property
    def target2(self) -> mpmath.mpf:
        """E_pi theta^2 = mu_p^2 + sigma_p^2, the target of eq. (22)."""
        with mpmath.workdps(self.dps):
            return self.posterior_mean**2 + self.posterior_var

    @property
    def zeta_cumulants(self) -> tuple:
        """(c_2, c_3, c_4): cumulants of zeta = h (B - E B) + s xi (notes 8.2)."""
        with mpmath.workdps(self.dps):
            k = self.cumulants_B
            return (self.h**2 * k[1] + self.noise_var, self.h**3 * k[2], self.h**4 * k[3])

    def _args(self, M_: int) -> tuple:
        """ARGS at M."""
        c = self.zeta_cumulants
        aa = self.a
        return (aa, mpmath.power(aa, M_), mpmath.mpf(M_), self.posterior_mean, self.theta0, c[0], c[1], c[2],
                self.posterior_var)

    def _needs_recursion(self) -> bool:
        """True at A h = 1 exactly (a = 0), where the closed forms divide 0 by 0."""
        return self.a == 0  # the closed forms divide by a^l - a^m (0/0 at A h = 1 exactly)

    # ----- moments at step k (notes 8.2)
    def moment(self, k: int, p: int) -> mpmath.mpf:
        """E theta_k^p, p <= 4, closed form in k (cumulant form of (C.2)-(C.5), notes 8.2)."""
        k = check_int("k", k, 0)
        p = check_int("p", p, 0, 4)
        with mpmath.workdps(self.dps):
            c = self.zeta_cumulants
            xk = mpmath.power(self.a, k) if k else mpmath.mpf(1)
            return +_lambdified_moment(p)(self.a, xk, self.posterior_mean, self.theta0, *c)

    def moment_recursion(self, k: int, p: int) -> mpmath.mpf:
        """E theta_k^p by iterating (C.2)-(C.5) k times with the raw moments E B^j (O(k); for checks)."""
        k = check_int("k", k, 0)
        p = check_int("p", p, 0, 4)
        with mpmath.workdps(self.dps):
            Q = self._transition_Q()
            m = [self.theta0**q for q in range(5)]
            for _ in range(k):
                m = [mpmath.fsum(Q[r][q] * m[q] for q in range(r + 1)) for r in range(5)]
            return m[p]

    def stationary_moment(self, p: int) -> mpmath.mpf:
        """lim_k E theta_k^p (eqs. 17, 18, 21 for p = 1, 2)."""
        p = check_int("p", p, 0, 4)
        with mpmath.workdps(self.dps):
            return self._stationary_moments()[p]

    def _stationary_moments(self) -> list:
        """lim_k E theta_k^p, p = 0..4."""
        c = self.zeta_cumulants
        return [_lambdified_moment(p)(self.a, mpmath.mpf(0), self.posterior_mean, self.theta0, *c) for p in range(5)]

    def bias_theta2(self) -> mpmath.mpf:
        """Asymptotic bias of phi = theta^2: Var_inf - sigma_p^2 (eqs. 18, 21)."""
        with mpmath.workdps(self.dps):
            return self.stationary_moment(2) - self.target2

    def cross_moment(self, i: int, j: int, p: int = 2) -> mpmath.mpf:
        """E[theta_i^p theta_j^p], p in {1, 2}, i <= j, closed form (notes 8.3; replaces (C.6)-(C.7))."""
        i = check_int("i", i, 0)
        j = check_int("j", j, i)
        p = check_int("p", p, 1, 2)
        if i == j:
            return self.moment(i, 2 * p)
        with mpmath.workdps(self.dps):
            coefs = _lambdified_kernel(p)(mpmath.power(self.a, j - i), self.a, self.posterior_mean,
                                          self.zeta_cumulants[0])
            return mpmath.fsum(cf * self.moment(i, p + t) for t, cf in enumerate(coefs))

    # ----- time averages (closed forms in M)
    def evaluate(self, quantity: str, M_: int) -> mpmath.mpf:
        """One closed form in M: 'es2', 'es2sq', 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num', 'ere'."""
        M_ = _check_M(M_)
        _check_quantity(quantity)
        if self._needs_recursion():
            return self.recursion(M_)[quantity]
        with mpmath.workdps(self.dps):
            return +lambdified(quantity)(*self._args(M_))

    def es2(self, M_: int) -> mpmath.mpf:
        """E S2(M), S2 = (1/M) sum_{k=0}^{M-1} theta_k^2 (eq. 22)."""
        return self.evaluate("es2", M_)

    def mse2(self, M_: int) -> mpmath.mpf:
        """MSE2(M) = E (S2 - mu_p^2 - sigma_p^2)^2, eq. (22) / (C.1)."""
        return self.evaluate("mse2", M_)

    def mse1(self, M_: int) -> mpmath.mpf:
        """MSE1(M) = E ((1/M) sum_{k<M} theta_k - mu_p)^2 (the posterior-mean analogue of eq. 22)."""
        return self.evaluate("mse1", M_)

    def ere_numerator(self, M_: int) -> mpmath.mpf:
        """E[S2 - S1^2], the expected variance estimate of eq. (68)/(72)."""
        return self.evaluate("ere_num", M_)

    def ere(self, M_: int) -> mpmath.mpf:
        """ERE(M) = E[(S2 - S1^2)/sigma_p^2] - 1, eq. (68)."""
        return self.evaluate("ere", M_)

    def var_s2(self, M_: int) -> mpmath.mpf:
        """Var(S2(M)) = E S2^2 - (E S2)^2."""
        with mpmath.workdps(self.dps):
            return self.evaluate("es2sq", M_) - self.evaluate("es2", M_) ** 2

    # ----- asymptotics (notes 8.4)
    def asymptotic_variance(self) -> mpmath.mpf:
        """sigma_as^2 = lim_M M Var(S2) (notes 004b 8.4, closed form):

        4 mu^2 s2 + 4 mu m3 + m4 - s2^2 + 4 mu (2 mu s2 + m3) rho/(1-rho) + 2 (2 mu m3 + m4 - s2^2) rho^2/(1-rho^2),
        s2 = V_inf, m3 = c_3/(1-a^3), m4 = c_4/(1-a^4) + 3 s2^2 (central moments of pi_h), rho = a.
        """
        with mpmath.workdps(self.dps):
            aa, m = self.a, self.posterior_mean
            c = self.zeta_cumulants
            s2 = c[0] / (1 - aa**2)
            m3 = c[1] / (1 - aa**3)
            m4 = c[2] / (1 - aa**4) + 3 * s2**2
            return (4 * m**2 * s2 + 4 * m * m3 + m4 - s2**2 + 4 * m * (2 * m * s2 + m3) * aa / (1 - aa)
                    + 2 * (2 * m * m3 + m4 - s2**2) * aa**2 / (1 - aa**2))

    def transient_coefficient(self) -> mpmath.mpf:
        """C with E S2(M) = E_{pi_h} theta^2 + C/M + O(a^M / M): sum_k (E theta_k^2 - E_{pi_h} theta^2) (new)."""
        return self.expansion("es2")[1]

    def expansion(self, quantity: str = "mse2") -> tuple:
        """(e0, e1, e2) with quantity(M) = e0 + e1/M + e2/M^2 up to terms O(M^2 a^M) (new, sympy).

        For MSE2: e0 = bias^2 and e1 = sigma_as^2 + 2 bias C (C = :meth:`transient_coefficient`): the
        h^2 + 1/(M h) structure of eq. (67).
        """
        _check_quantity(quantity)
        with mpmath.workdps(self.dps):
            args = self._args(1)
            args = (args[0], mpmath.mpf(0), mpmath.mpf(1)) + args[3:]
            return tuple(+f(*args) for f in _lambdified_expansion(quantity))

    # ----- independent cross-checks
    def _transition_Q(self) -> list[list]:
        """Q[p][q] = C(p, q) a^q w_{p-q}, w_j = E (h B + s xi)^j from raw moments (C.2)-(C.5)."""
        h, s2 = self.h, self.noise_var
        w = []
        for j in range(5):
            w.append(mpmath.fsum(math.comb(j, t) * h**t * self.b[t] * s2 ** ((j - t) // 2) * _gauss_moment(j - t)
                                 for t in range(j + 1) if (j - t) % 2 == 0))
        aa = self.a
        return [[math.comb(p, q) * aa**q * w[p - q] if q <= p else mpmath.mpf(0) for q in range(5)]
                for p in range(5)]

    def transition_matrix(self) -> list[list]:
        """The 15 x 15 matrix T of the augmented linear recursion (notes 004b 8.3 / 004 section 3).

        State: E theta^0..4 (0-4), E theta^p Z, p = 0..2 (5-7; Z_k = sum_{i<k} theta_i^2), E theta^p Y, p = 0, 1
        (8-9; Y_k = sum_{i<k} theta_i), running sums of E theta^4, E theta^2 Z, E theta^2, E theta, E theta Y (10-14).
        """
        with mpmath.workdps(self.dps):
            Q = self._transition_Q()
            T = [[mpmath.mpf(0)] * 15 for _ in range(15)]
            for p in range(5):
                for q in range(p + 1):
                    T[p][q] = Q[p][q]
            for p in range(3):
                for q in range(p + 1):
                    T[5 + p][5 + q] += Q[p][q]
                    T[5 + p][q + 2] += Q[p][q]
            for p in range(2):
                for q in range(p + 1):
                    T[8 + p][8 + q] += Q[p][q]
                    T[8 + p][q + 1] += Q[p][q]
            for row, src in ((10, 4), (11, 7), (12, 2), (13, 1), (14, 9)):
                T[row][row] = mpmath.mpf(1)
                T[row][src] += 1
            return T

    def recursion(self, M_: int) -> dict:
        """Every quantity of :meth:`evaluate` from T^M applied to the initial state (repeated squaring, O(log M))."""
        M_ = _check_M(M_)
        with mpmath.workdps(self.dps):
            P = self.transition_matrix()
            v = [self.theta0**q for q in range(5)] + [mpmath.mpf(0)] * 10
            e = M_
            while e:
                if e & 1:
                    v = [mpmath.fdot(row, v) for row in P]
                e >>= 1
                if e:
                    cols = list(zip(*P, strict=True))
                    P = [[mpmath.fdot(row, col) for col in cols] for row in P]
            S4, S22, S2, S1, S11 = v[10:15]
            return self._assemble(M_, S2 / M_, (S4 + 2 * S22) / M_**2, S1 / M_, (S2 + 2 * S11) / M_**2)

    def enumeration(self, M_: int) -> dict:
        """Every quantity of :meth:`evaluate` by brute-force double sums over i < j (O(M^2); for checks).

        E theta_i^2 theta_j^2 is obtained by propagating E[theta_i^2 theta_j^q], q <= 2, from j = i step by step.
        """
        M_ = check_int("M", M_, 1, 5000)
        with mpmath.workdps(self.dps):
            Q = self._transition_Q()
            m = [[self.theta0**q for q in range(5)]]
            for _ in range(M_ - 1):
                prev = m[-1]
                m.append([mpmath.fsum(Q[r][q] * prev[q] for q in range(r + 1)) for r in range(5)])
            sum22 = mpmath.mpf(0)
            sum11 = mpmath.mpf(0)
            for i in range(M_):
                u = [m[i][2], m[i][3], m[i][4]]
                w = [m[i][1], m[i][2]]
                for _ in range(i + 1, M_):
                    u = [mpmath.fsum(Q[r][q] * u[q] for q in range(r + 1)) for r in range(3)]
                    w = [mpmath.fsum(Q[r][q] * w[q] for q in range(r + 1)) for r in range(2)]
                    sum22 += u[2]
                    sum11 += w[1]
            s4 = mpmath.fsum(row[4] for row in m)
            s2 = mpmath.fsum(row[2] for row in m)
            s1 = mpmath.fsum(row[1] for row in m)
            return self._assemble(M_, s2 / M_, (s4 + 2 * sum22) / M_**2, s1 / M_, (s2 + 2 * sum11) / M_**2)

    def _assemble(self, M_: int, es2: mpmath.mpf, es2sq: mpmath.mpf, es1: mpmath.mpf, es1sq: mpmath.mpf) -> dict:
        """Every quantity of :meth:`evaluate` from E S2, E S2^2, E S1, E S1^2."""
        t, m = self.target2, self.posterior_mean
        ere_num = es2 - es1sq
        return {"es2": es2, "es2sq": es2sq, "es1": es1, "es1sq": es1sq,
                "mse2": es2sq - 2 * t * es2 + t**2, "mse1": es1sq - 2 * m * es1 + m**2,
                "ere_num": ere_num, "ere": ere_num / self.posterior_var - 1}


# ----------------------------------------------------------------------------------------------- constructors

def _A_float(N: int, sigma_x: float, sigma_theta: float) -> float:
    """A as the simulator computes it (GaussianMeanModel.A), eq. (15)."""
    return 0.5 * (1.0 / sigma_theta**2 + N / sigma_x**2)


def step_size(r: float, N: int, sigma_x: float = 1.0, sigma_theta: float = 1.0) -> float:
    """h = r / A (float, as the verify claims build samplers), 0 < r < 2."""
    r = check_positive("r", r)
    if r >= 2.0:
        raise ParameterError(f"r must satisfy 0 < r < 2 (stability, r = A h), got {r}")
    return r / _A_float(N, sigma_x, sigma_theta)


def toy_finite_time(method: str, data: ArrayLike, n: int | None = None, *, replace: bool = False,
                    h: float | None = None, r: float | None = None, sigma_x: float = 1.0, sigma_theta: float = 1.0,
                    theta0: float = 0.0, dps: int = DEFAULT_DPS) -> ToyFiniteTime:
    """Exact finite-time theory for a data set, subset size n, sampling scheme and step h (or r = A h).

    Euler ignores n and replace (B is the constant sum_i x_i / (2 sigma_x^2)).  E B^p are exact (eqs. 14-16,
    App. 10.1, :mod:`theory.noise.subset_moments`).
    """
    _check_method(method)
    xd = check_finite_array("data", data, ndim=(1, 2))
    if xd.ndim == 2:
        if xd.shape[1] != 1:
            raise ParameterError(f"data must be 1-D for the toy model, got shape {xd.shape}")
        xd = xd[:, 0]
    N = xd.size
    if N < 2:
        raise ParameterError(f"data must hold N >= 2 points, got N = {N}")
    sigma_x = check_positive("sigma_x", sigma_x)
    sigma_theta = check_positive("sigma_theta", sigma_theta)
    if (h is None) == (r is None):
        raise ParameterError("give exactly one of h (0 < h < 2/A) and r = A h (0 < r < 2)")
    if h is None:
        h = step_size(r, N, sigma_x, sigma_theta)
    if method == "euler":
        n, replace = N, False
    elif n is None:
        raise ParameterError(f"n must be given for {method}: 1 <= n <= N = {N}")
    n = check_int("n", n, 1, N)
    b = sm.minibatch_term_moments(xd, n, bool(replace), sigma_x, 4)
    A = (Fraction(1) / Fraction(sigma_theta) ** 2 + Fraction(N) / Fraction(sigma_x) ** 2) / 2
    _check_dps(dps)
    th = check_finite_array("theta0", theta0, ndim=(0,))
    with mpmath.workdps(dps):
        return ToyFiniteTime(method, _mpf(A), _mpf(float(h)), tuple(_mpf(v) for v in b), _mpf(float(th)), dps)


def from_sampler(sampler: Any, theta0: float = 0.0, dps: int = DEFAULT_DPS) -> ToyFiniteTime:
    """The finite-time theory of a simulate sampler on a 1-D GaussianMeanModel (same data, n, scheme, h)."""
    from simulate.models.gaussian import GaussianMeanModel
    from theory.toy.chain import method_of

    model = sampler.model
    if not isinstance(model, GaussianMeanModel) or model.dim != 1:
        raise ParameterError("toy theory needs a 1-D GaussianMeanModel")
    method = method_of(sampler)
    est = sampler.estimator
    n = None if method == "euler" else est.n
    replace = False if method == "euler" else est.replace
    return toy_finite_time(method, model.data[:, 0], n, replace=replace, h=sampler.h, sigma_x=model.sigma_x,
                           sigma_theta=model.sigma_theta, theta0=theta0, dps=dps)


# ----------------------------------------------------------------------------------------------- random data

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
    """E prod_m p_m^{e_m} for x_i ~ iid N(mean, sd^2), p_m = sum_i x_i^m (new; Appendix 10.2):

    sum over set partitions of the factor list of (N)_{#blocks} prod_blocks E X^{sum of the block's orders}.
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
                       sigma_X: float | None = None, sigma_x: float = 1.0, sigma_theta: float = 1.0,
                       theta0: float = 0.0, dps: int = 80) -> mpmath.mpf:
    """EXACT E_X of a finite-time quantity over data x_i ~ iid N(theta_dagger, sigma_X^2) (Appendix 10.2).

    quantity in :data:`QUANTITIES`; sigma_X defaults to sigma_x (well-specified model); theta0 = 0 as in App. 10.2.
    mu_p, the minibatch cumulants and (mSGLD) the noise scale all depend on the data and sit inside the expectation.
    """
    _check_quantity(quantity)
    _check_method(method)
    N = check_int("N", N, 2)
    M_ = _check_M(M_)
    sigma_x = check_positive("sigma_x", sigma_x)
    sigma_theta = check_positive("sigma_theta", sigma_theta)
    sigma_X = sigma_x if sigma_X is None else check_positive("sigma_X", sigma_X)
    if (h is None) == (r is None):
        raise ParameterError("give exactly one of h (0 < h < 2/A) and r = A h (0 < r < 2)")
    if h is None:
        h = step_size(r, N, sigma_x, sigma_theta)
    check_step_size(h, 2.0 / _A_float(N, sigma_x, sigma_theta), "stability of the toy chain, h < 2/A")
    if method == "euler":
        n, replace = N, False
    elif n is None:
        raise ParameterError(f"n must be given for {method}: 1 <= n <= N = {N}")
    n = check_int("n", n, 1, N)
    dps = _check_dps(dps)
    with mpmath.workdps(dps):
        A = _mpf((Fraction(1) / Fraction(sigma_theta) ** 2 + Fraction(N) / Fraction(sigma_x) ** 2) / 2)
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
                          sigma_theta: float = 1.0, theta0: float = 0.0, dps: int = DEFAULT_DPS
                          ) -> tuple[float, float]:
    """Monte Carlo E_X: the exact fixed-data quantity averaged over ``n_datasets`` simulated data sets
    (Appendix 10.2; notes 004b 8.6 practical route).  Returns (mean, standard error)."""
    n_datasets = check_int("n_datasets", n_datasets, 2)
    seed = check_int("seed", seed, 0)
    N = check_int("N", N, 2)
    sigma_X = sigma_x if sigma_X is None else check_positive("sigma_X", sigma_X)
    if h is None and r is not None:
        h, r = step_size(r, N, sigma_x, sigma_theta), None
    rng = np.random.default_rng(seed)
    vals = []
    for _ in range(n_datasets):
        xd = theta_dagger + sigma_X * rng.standard_normal(N)
        ch = toy_finite_time(method, xd, n, replace=replace, h=h, r=r, sigma_x=sigma_x, sigma_theta=sigma_theta,
                             theta0=theta0, dps=dps)
        vals.append(float(ch.evaluate(quantity, M_)))
    v = np.array(vals)
    return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size))


__all__ = [
    "ARGS", "METHODS", "QUANTITIES", "ToyFiniteTime", "clear_derivation_cache", "cross_kernel_11", "cross_kernel_22",
    "data_polynomial", "derivation", "expansion_coefficients", "expected_over_data", "expected_over_data_mc",
    "expected_power_sum_monomial", "from_sampler", "geom_sum", "geometric_primitives", "lambdified",
    "moment_polynomials", "pair_sum", "step_size", "toy_finite_time",
]
