"""Exact finite-time theory of Euler / SGLD / mSGLD on the 1-D Gaussian toy model (Vollmer et al. 2016,
Section 2.2, eq. 22, eq. 68 and Appendix 10; re-derived in docs/papers/vollmer.md sec. 4).

One step of every method is theta' = a theta + h B + s xi with a = 1 - A h, B_k iid (a fresh minibatch each
step; Euler: B constant), xi ~ N(0, 1), and s = sqrt(h) (Euler, SGLD) or sqrt(h) (1 - h Var(B)/2) (mSGLD, eq. 20).
theta_0 is deterministic.

**Closed forms (sympy, derived once, evaluated with mpmath).**  With mu = E(B)/A = mu_p, delta_0 = theta_0 - mu
and zeta = h (B - E B) + s xi (cumulants c_2 = h^2 Var B + s^2, c_3 = h^3 kappa_3(B), c_4 = h^4 kappa_4(B)),
theta_k = mu + D_k where D_k has mean a^k delta_0 and cumulants c_p (1 - a^{pk}) / (1 - a^p) (docs/papers/vollmer.md
sec. 4.2), so E theta_k^p (p <= 4) is a polynomial in x = a^k.  The cross moments (docs/papers/vollmer.md sec. 4.3; they
replace the paper's (C.6)-(C.7), whose printed (1-Ah)^{j-i} should read (1-Ah)^{2(j-i)}) are, with y = a^{j-i} and
V_inf = c_2 / (1 - a^2),

    E theta_i^2 theta_j^2 = (V_inf (1 - y^2) + mu^2 (1 - y)^2) E theta_i^2
                            + 2 mu (1 - y) y E theta_i^3 + y^2 E theta_i^4,
    E theta_i theta_j     = mu (1 - y) E theta_i + y E theta_i^2.

So every sum over k < M is a combination of sum_k a^{lk} and sum_{i<j} a^{li} a^{m(j-i)}: sympy evaluates these
finite geometric sums in closed form once, with z = a^M kept as a symbol, and the results are lambdified to mpmath.
The derivation is generic (the method enters only through the numbers c_2, c_3, c_4), so it runs once per process
and is cached.  Evaluating at M = 10^9 costs the same as at M = 10.  Near the plateau
MSE2 ~ 1e-8 comes from terms ~ 1, so the default precision is 60 digits; results are mpmath numbers at that
precision (do further arithmetic inside ``mpmath.workdps``, or convert with float()).

**Cross-checks.** :meth:`ToyFiniteTime.recursion` advances the augmented 15-state linear recursion of
docs/papers/vollmer.md sec. 4.3 (raw moments E B^j, no cumulants) by a matrix power in O(log M);
:meth:`ToyFiniteTime.enumeration` sums the O(M^2) double sum of E theta_i^2 theta_j^2 by propagating conditional moments
step by step.

**Random data** (Appendix 10.2): :mod:`theory.toy.data_average` averages these quantities over data sets exactly.
The sympy derivation lives in :mod:`theory.toy.finite_time_sympy`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from numpy.typing import ArrayLike

from simulate.validation import ParameterError, check_finite_array, check_int, check_positive, check_step_size
from theory.noise import subset_moments as sm
from theory.schemes import check_method
from theory.toy.constants import check_toy_data
from theory.toy.finite_time_sympy import (
    DEFAULT_DPS,
    _check_dps,
    _check_M,
    _check_quantity,
    _gauss_moment,
    _lambdified_expansion,
    _lambdified_kernel,
    _lambdified_moment,
    _mpf,
    lambdified,
)


@dataclass(frozen=True)
class ToyFiniteTime:
    """Exact finite-time moments of one toy chain theta' = a theta + h B + s xi, and of its time averages.

    Build it with :func:`toy_finite_time` (from data) or :func:`from_sampler`. Every result is an mpmath number at
    ``dps`` digits (module docstring).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    A : mpmath.mpf
        (1/2)(1/sigma0^2 + N/sigma_x^2).
    h : mpmath.mpf
        The step size, 0 < h < 2/A.
    b : tuple of mpmath.mpf
        E B^0 = 1, E B^1, ..., E B^4, exactly; for Euler B is the constant E(B).
    theta0 : mpmath.mpf
        The deterministic start theta_0.
    dps : int, default DEFAULT_DPS
        Decimal digits, 20 <= dps <= 10000 (default 60).

    Raises
    ------
    ParameterError
        When method, dps, b, h or theta0 is invalid, or Euler is given a random B.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2.2, eqs. (22) and (68), Appendix 10 (:doc:`/papers/vollmer`, sec. 4).
    """

    method: str
    A: mpmath.mpf
    h: mpmath.mpf
    b: tuple
    theta0: mpmath.mpf
    dps: int = DEFAULT_DPS

    def __post_init__(self) -> None:
        """Validate method, precision, moments, step size (h < 2/A) and theta0."""
        check_method(self.method)
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
        """a = 1 - A h, the mean's contraction per step (eq. (14))."""
        with mpmath.workdps(self.dps):
            return 1 - self.A * self.h

    @property
    def var_B(self) -> mpmath.mpf:
        """Var(B), eq. (16)."""
        with mpmath.workdps(self.dps):
            return self.b[2] - self.b[1] ** 2

    @property
    def cumulants_B(self) -> tuple:
        """The cumulants (kappa_1, kappa_2, kappa_3, kappa_4) of B."""
        with mpmath.workdps(self.dps):
            return tuple(+v for v in sm.cumulants_from_raw(list(self.b)))

    @property
    def noise_var(self) -> mpmath.mpf:
        """The injected noise's variance s^2: h (Euler, SGLD) or h (1 - h Var(B)/2)^2 (mSGLD, eq. (20))."""
        with mpmath.workdps(self.dps):
            if self.method == "msgld":
                return self.h * (1 - self.h * self.var_B / 2) ** 2
            return +self.h

    @property
    def posterior_mean(self) -> mpmath.mpf:
        """The posterior mean mu_p = E(B)/A (eqs. (12), (17))."""
        with mpmath.workdps(self.dps):
            return self.b[1] / self.A

    @property
    def posterior_var(self) -> mpmath.mpf:
        """The posterior variance sigma_p^2 = 1/(2A) (eq. (12))."""
        with mpmath.workdps(self.dps):
            return 1 / (2 * self.A)

    @property
    def target2(self) -> mpmath.mpf:
        """E_pi theta^2 = mu_p^2 + sigma_p^2, the target of eq. (22)."""
        with mpmath.workdps(self.dps):
            return self.posterior_mean**2 + self.posterior_var

    @property
    def zeta_cumulants(self) -> tuple:
        """(c_2, c_3, c_4): the cumulants of the step noise zeta = h (B - E B) + s xi (digest sec. 4.2)."""
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

    # ----- moments at step k (docs/papers/vollmer.md sec. 4.2)
    def moment(self, k: int, p: int) -> mpmath.mpf:
        """E theta_k^p, p <= 4, in closed form in k (the cumulant form of (C.2)-(C.5)).

        Parameters
        ----------
        k : int
            The step, >= 0.
        p : int
            The power, 0 <= p <= 4.

        Returns
        -------
        mpmath.mpf

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), (C.2)-(C.5) (:doc:`/papers/vollmer`, sec. 4.2).
        """
        k = check_int("k", k, 0)
        p = check_int("p", p, 0, 4)
        with mpmath.workdps(self.dps):
            c = self.zeta_cumulants
            xk = mpmath.power(self.a, k) if k else mpmath.mpf(1)
            return +_lambdified_moment(p)(self.a, xk, self.posterior_mean, self.theta0, *c)

    def moment_recursion(self, k: int, p: int) -> mpmath.mpf:
        """E theta_k^p by iterating (C.2)-(C.5) k times with the raw moments E B^j (O(k); an independent check).

        Parameters
        ----------
        k : int
            The step, >= 0.
        p : int
            The power, 0 <= p <= 4.

        Returns
        -------
        mpmath.mpf
        """
        k = check_int("k", k, 0)
        p = check_int("p", p, 0, 4)
        with mpmath.workdps(self.dps):
            Q = self._transition_Q()
            m = [self.theta0**q for q in range(5)]
            for _ in range(k):
                m = [mpmath.fsum(Q[r][q] * m[q] for q in range(r + 1)) for r in range(5)]
            return m[p]

    def stationary_moment(self, p: int) -> mpmath.mpf:
        """The stationary moment lim_k E theta_k^p (eqs. (17), (18), (21) for p = 1, 2).

        Parameters
        ----------
        p : int
            The power, 0 <= p <= 4.

        Returns
        -------
        mpmath.mpf
        """
        p = check_int("p", p, 0, 4)
        with mpmath.workdps(self.dps):
            return self._stationary_moments()[p]

    def _stationary_moments(self) -> list:
        """lim_k E theta_k^p, p = 0..4."""
        c = self.zeta_cumulants
        return [_lambdified_moment(p)(self.a, mpmath.mpf(0), self.posterior_mean, self.theta0, *c) for p in range(5)]

    def bias_theta2(self) -> mpmath.mpf:
        """The asymptotic bias of phi = theta^2: lim E theta_k^2 - (mu_p^2 + sigma_p^2) (eqs. (18), (21)).

        Returns
        -------
        mpmath.mpf
        """
        with mpmath.workdps(self.dps):
            return self.stationary_moment(2) - self.target2

    def cross_moment(self, i: int, j: int, p: int = 2) -> mpmath.mpf:
        """The cross moment E[theta_i^p theta_j^p], p in {1, 2}, i <= j, in closed form.

        It replaces the paper's (C.6)-(C.7), whose printed (1 - Ah)^{j-i} should read (1 - Ah)^{2(j-i)}.

        Parameters
        ----------
        i : int
            The earlier step, >= 0.
        j : int
            The later step, >= i.
        p : int, default 2
            1 or 2.

        Returns
        -------
        mpmath.mpf

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), (C.6)-(C.7), corrected (:doc:`/papers/vollmer`, secs. 4.3 and 11).
        """
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
        """One time-average quantity in closed form in M (by the recursion at A h = 1 exactly, where they are 0/0).

        Parameters
        ----------
        quantity : str
            'es2' (E S2), 'es2sq' (E S2^2), 'es1', 'es1sq', 'mse2', 'mse1', 'ere_num' or 'ere'
            (``theory.toy.finite_time_sympy.QUANTITIES``).
        M_ : int
            M >= 1, the number of states averaged.

        Returns
        -------
        mpmath.mpf

        Raises
        ------
        ParameterError
            When quantity is unknown or M < 1.
        """
        M_ = _check_M(M_)
        _check_quantity(quantity)
        if self._needs_recursion():
            return self.recursion(M_)[quantity]
        with mpmath.workdps(self.dps):
            return +lambdified(quantity)(*self._args(M_))

    def es2(self, M_: int) -> mpmath.mpf:
        """E S2(M), S2 = (1/M) sum_{k=0}^{M-1} theta_k^2 (eq. (22)).

        Parameters
        ----------
        M_ : int
            M >= 1, the number of states averaged, theta_0 .. theta_{M-1} (an integral float such as 1e9 is
            accepted).

        Returns
        -------
        mpmath.mpf
        """
        return self.evaluate("es2", M_)

    def mse2(self, M_: int) -> mpmath.mpf:
        """MSE2(M) = E (S2 - mu_p^2 - sigma_p^2)^2, the mean squared error of the time average of theta^2.

        Parameters
        ----------
        M_ : int
            M >= 1, the number of states averaged, theta_0 .. theta_{M-1} (an integral float such as 1e9 is
            accepted).

        Returns
        -------
        mpmath.mpf

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (22) and (C.1) (:doc:`/papers/vollmer`, sec. 4).
        """
        return self.evaluate("mse2", M_)

    def mse1(self, M_: int) -> mpmath.mpf:
        """MSE1(M) = E ((1/M) sum_{k<M} theta_k - mu_p)^2, the posterior-mean analogue of eq. (22).

        Parameters
        ----------
        M_ : int
            M >= 1, the number of states averaged, theta_0 .. theta_{M-1} (an integral float such as 1e9 is
            accepted).

        Returns
        -------
        mpmath.mpf
        """
        return self.evaluate("mse1", M_)

    def ere_numerator(self, M_: int) -> mpmath.mpf:
        """E[S2 - S1^2], the expected variance estimate of eqs. (68) and (72).

        Parameters
        ----------
        M_ : int
            M >= 1, the number of states averaged, theta_0 .. theta_{M-1} (an integral float such as 1e9 is
            accepted).

        Returns
        -------
        mpmath.mpf
        """
        return self.evaluate("ere_num", M_)

    def ere(self, M_: int) -> mpmath.mpf:
        """ERE(M) = E[(S2 - S1^2)/sigma_p^2] - 1, the expected relative error of the variance estimate (eq. (68)).

        Parameters
        ----------
        M_ : int
            M >= 1, the number of states averaged, theta_0 .. theta_{M-1} (an integral float such as 1e9 is
            accepted).

        Returns
        -------
        mpmath.mpf
        """
        return self.evaluate("ere", M_)

    def var_s2(self, M_: int) -> mpmath.mpf:
        """Var(S2(M)) = E S2^2 - (E S2)^2.

        Parameters
        ----------
        M_ : int
            M >= 1, the number of states averaged, theta_0 .. theta_{M-1} (an integral float such as 1e9 is
            accepted).

        Returns
        -------
        mpmath.mpf
        """
        with mpmath.workdps(self.dps):
            return self.evaluate("es2sq", M_) - self.evaluate("es2", M_) ** 2

    # ----- asymptotics (docs/papers/vollmer.md sec. 4.4)
    def asymptotic_variance(self) -> mpmath.mpf:
        """The asymptotic variance sigma_as^2 = lim_M M Var(S2), in closed form (new).

        4 mu^2 s2 + 4 mu m3 + m4 - s2^2 + 4 mu (2 mu s2 + m3) rho/(1-rho) + 2 (2 mu m3 + m4 - s2^2) rho^2/(1-rho^2),
        s2 = V_inf, m3 = c_3/(1-a^3), m4 = c_4/(1-a^4) + 3 s2^2 (central moments of pi_h), rho = a.

        Returns
        -------
        mpmath.mpf

        References
        ----------
        :doc:`/papers/vollmer`, sec. 4.4.
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
        """C with E S2(M) = E_{pi_h} theta^2 + C/M + O(a^M / M): sum_k (E theta_k^2 - E_{pi_h} theta^2) (new).

        Returns
        -------
        mpmath.mpf
        """
        return self.expansion("es2")[1]

    def expansion(self, quantity: str = "mse2") -> tuple:
        """The expansion quantity(M) = e0 + e1/M + e2/M^2, up to terms O(M^2 a^M) (new, sympy).

        For MSE2: e0 = bias^2 and e1 = sigma_as^2 + 2 bias C (C = :meth:`transient_coefficient`): the
        h^2 + 1/(M h) structure of eq. (67).

        Parameters
        ----------
        quantity : str, default "mse2"
            As for :meth:`evaluate`.

        Returns
        -------
        tuple of mpmath.mpf
            (e0, e1, e2).

        Raises
        ------
        ParameterError
            When quantity is unknown.
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
        """The 15 x 15 matrix T of the augmented linear recursion (digest sec. 4.3).

        State: E theta^0..4 (0-4), E theta^p Z, p = 0..2 (5-7; Z_k = sum_{i<k} theta_i^2), E theta^p Y, p = 0, 1
        (8-9; Y_k = sum_{i<k} theta_i), running sums of E theta^4, E theta^2 Z, E theta^2, E theta, E theta Y (10-14).

        Returns
        -------
        list of list of mpmath.mpf
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
        """Every quantity of :meth:`evaluate` from T^M applied to the initial state (repeated squaring, O(log M)).

        An independent route (raw moments, no cumulants) to the closed forms.

        Parameters
        ----------
        M_ : int
            M >= 1.

        Returns
        -------
        dict of str to mpmath.mpf
            Keyed by the quantities' names.
        """
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

        Parameters
        ----------
        M_ : int
            1 <= M <= 5000.

        Returns
        -------
        dict of str to mpmath.mpf
            Keyed by the quantities' names.
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


def _A_float(N: int, sigma_x: float, sigma0: float) -> float:
    """A as the simulator computes it (GaussianMeanModel.A), eq. (15)."""
    return 0.5 * (1.0 / sigma0**2 + N / sigma_x**2)


def step_size(r: float, N: int, sigma_x: float = 1.0, sigma0: float = 1.0) -> float:
    """The step size h = r / A for r = A h (a float, as the claims build samplers).

    Parameters
    ----------
    r : float
        r = A h, 0 < r < 2 (the paper uses r < 1).
    N : int
        The number of data.
    sigma_x : float, default 1.0
        The data's standard deviation.
    sigma0 : float, default 1.0
        The prior's standard deviation.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When r is not in (0, 2).
    """
    r = check_positive("r", r)
    if r >= 2.0:
        raise ParameterError(f"r must satisfy 0 < r < 2 (stability, r = A h), got {r}")
    return r / _A_float(N, sigma_x, sigma0)


def toy_finite_time(method: str, data: ArrayLike, n: int | None = None, *, replace: bool = False,
                    h: float | None = None, r: float | None = None, sigma_x: float = 1.0, sigma0: float = 1.0,
                    theta0: float = 0.0, dps: int = DEFAULT_DPS) -> ToyFiniteTime:
    """The exact finite-time theory of one toy chain, for a data set, subset size, sampling scheme and step size.

    Euler ignores n and replace (B is the constant sum_i x_i / (2 sigma_x^2)). E B^p are exact (eqs. (14)-(16),
    Appendix 10.1, :mod:`theory.noise.subset_moments`).

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    data : array_like, shape (N,) or (N, 1)
        The data, N >= 2.
    n : int, optional
        The subset size, 1 <= n <= N (required for SGLD and mSGLD).
    replace : bool, default False
        Subsets with replacement or without.
    h : float, optional
        The step size; give exactly one of h and r.
    r : float, optional
        r = A h, 0 < r < 2.
    sigma_x : float, default 1.0
        The data's standard deviation.
    sigma0 : float, default 1.0
        The prior's standard deviation.
    theta0 : float, default 0.0
        The deterministic start.
    dps : int, default DEFAULT_DPS
        Decimal digits (default 60).

    Returns
    -------
    ToyFiniteTime

    Raises
    ------
    ParameterError
        When an argument is out of range, both or neither of h and r is given, or n is missing.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (14)-(16), (22), Appendix 10 (:doc:`/papers/vollmer`, sec. 4).
    """
    check_method(method)
    xd = check_toy_data(data)
    N = xd.size
    sigma_x = check_positive("sigma_x", sigma_x)
    sigma0 = check_positive("sigma0", sigma0)
    if (h is None) == (r is None):
        raise ParameterError("give exactly one of h (0 < h < 2/A) and r = A h (0 < r < 2)")
    if h is None:
        h = step_size(r, N, sigma_x, sigma0)
    if method == "euler":
        n, replace = N, False
    elif n is None:
        raise ParameterError(f"n must be given for {method}: 1 <= n <= N = {N}")
    n = check_int("n", n, 1, N)
    b = sm.minibatch_term_moments(xd, n, bool(replace), sigma_x, 4)
    A = (Fraction(1) / Fraction(sigma0) ** 2 + Fraction(N) / Fraction(sigma_x) ** 2) / 2
    _check_dps(dps)
    th = check_finite_array("theta0", theta0, ndim=(0,))
    with mpmath.workdps(dps):
        return ToyFiniteTime(method, _mpf(A), _mpf(float(h)), tuple(_mpf(v) for v in b), _mpf(float(th)), dps)


def from_sampler(sampler: Any, theta0: float = 0.0, dps: int = DEFAULT_DPS) -> ToyFiniteTime:
    """The finite-time theory of a simulator sampler on a 1-D GaussianMeanModel (the same data, n, scheme, h).

    Parameters
    ----------
    sampler : simulate.Sampler
        Euler, SGLD or mSGLD on a 1-D :class:`simulate.GaussianMeanModel` (:func:`theory.toy.chain.method_of`).
    theta0 : float, default 0.0
        The deterministic start.
    dps : int, default DEFAULT_DPS
        Decimal digits.

    Returns
    -------
    ToyFiniteTime

    Raises
    ------
    ParameterError
        When the model or the sampler is not one the toy theory covers.
    """
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
                           sigma0=model.sigma0, theta0=theta0, dps=dps)


__all__ = ["ToyFiniteTime", "from_sampler", "step_size", "toy_finite_time"]
