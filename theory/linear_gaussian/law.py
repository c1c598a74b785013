"""``exact_law(sampler)``: the exact law of a simulator sampler on a model with an affine gradient (docs/engine.md).

Every sampler of the workbench on such a model is a chain x_{k+1} = M_k x_k + b_k + noise_k in its whole state x
(theta, SGHMC's momentum, the estimator's anchors / frozen noise / SAGA table) with (M_k, b_k) random through the
minibatch counts only and independent across steps given the phase k mod P. Hence, exactly:

    means:           E x_{k+1} = Phi_k E x_k + beta_k;
    second moments:  E x_{k+1} x_{k+1}^T = E[M_k S M_k^T] + ... (:mod:`.stages`), with the exact joint moments of
                     the minibatch sums (:mod:`.noise`);
    stationary law:  the fixed point over one period (m-periodic for SVRG / Chen et al.'s Algorithm 1, minibatch
                     reuse, SGHMC's momentum refresh: the law depends on the phase, and the engine says so);
    stability:       mean-square stable iff rho(T) < 1, T the period's second-moment map; the limit in h is computed.

All results are exact (float64 rounding only; :mod:`.mp` repeats them at 50 digits). ``theta0`` (d,) and ``cov0``
(d, d) give the start theta_0 ~ N(theta0, cov0) (default: the point 0, as :func:`simulate.run`). docs/engine.md derives
every step.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import sympy as sp

from simulate.validation import ParameterError, check_finite_array, check_int

from . import solve
from .affine import Parts, converter, posterior, read_parts
from .assembled import ASSEMBLY_ALWAYS_FLOPS, assembled, assembly_flops, period_matrix
from .compose import build_kernel
from .kernel import Context, Kernel
from .symmetric import pack, size, unpack

#: Beyond this many whole periods mean(k) / cov(k) use powers of the period matrices ...
POWER_FROM = 64
#: ... when the homogeneous second moment has at most this many symmetric coordinates s(D + 1).
POWER_MAX_S = 400


class ExactLaw:
    """The exact law of one sampler's chain from one start on a model with an affine gradient; see :func:`exact_law`.

    The chain x_{k+1} = M_k x_k + b_k + noise_k in its whole state x (theta, a momentum, the estimator's anchors or
    table) has random coefficients that depend on the minibatch counts only, so its first and second moments obey
    exact linear recursions (module docstring): every answer is exact up to float64 rounding (:meth:`mp` repeats
    them at 50 digits), nothing is simulated.

    Parameters
    ----------
    sampler : simulate.Sampler
        The sampler, on a model with ``affine_parts()`` (:class:`simulate.AffineModel`).
    theta0 : array_like, shape (d,), optional
        The start's mean (default 0).
    cov0 : array_like, shape (d, d), optional
        The start's covariance, symmetric positive semi-definite (default 0: a point).

    Raises
    ------
    ParameterError
        When the model has no affine gradient, a part of the sampler has no exact law (:func:`theory.law_of`),
        or a start has the wrong shape.

    References
    ----------
    The engine's derivation, :doc:`/engine` (new); on the Gaussian toy it reproduces Vollmer, Zygalakis & Teh
    (2016), eqs. (14)-(22) (:doc:`/papers/vollmer`, secs. 3-4).
    """

    def __init__(self, sampler, theta0=None, cov0=None) -> None:
        self.sampler = sampler
        self.model = sampler.model
        self.source = read_parts(self.model)
        d = self.source.dim
        with solve.blas_threads_for(d):
            self.posterior_mean, self.posterior_cov = posterior(self.source)
            self.h = float(sampler.h)
            self.theta0 = np.zeros(d) if theta0 is None else _vector("theta0", theta0, d)
            self.cov0 = np.zeros((d, d)) if cov0 is None else _covariance("cov0", cov0, d)
            self._proj = None
            self._parts: dict[str, Parts] = {}
            self.kernel = self.build(self.h)
        self.explicit = assembled(self.kernel)

    def projected(self, proj: np.ndarray, source) -> ExactLaw:
        """The law of the coordinates proj @ theta, for a model whose dynamics they close on (isotropic models).

        Parameters
        ----------
        proj : numpy.ndarray, shape (q, d)
            The projection.
        source : theory.linear_gaussian.contract.Parts
            The projected model's affine parts.

        Returns
        -------
        ExactLaw
            The same sampler's law on the q projected coordinates, from the projected start.
        """
        out = object.__new__(ExactLaw)
        out.sampler, out.model, out.source, out.h, out._proj = self.sampler, None, source, self.h, proj
        out.posterior_mean, out.posterior_cov = posterior(source)
        out.theta0, out.cov0 = proj @ self.theta0, proj @ self.cov0 @ proj.T
        out._parts = {}
        out.kernel = out.build(self.h)
        out.explicit = assembled(out.kernel)
        return out

    def build(self, h, kind: str = "float") -> Kernel:
        """The chain's kernel (its per-step moment maps) at another step size or in another number type.

        The parts (and their products over the data) are shared by every kernel of this law.

        Parameters
        ----------
        h : float or sympy.Basic
            The step size (a sympy symbol for the h-series).
        kind : str, default "float"
            The number type: "float", "complex", "mp" (mpmath) or "sympy"
            (``theory.linear_gaussian.affine.NUMBER_KINDS``).

        Returns
        -------
        theory.linear_gaussian.kernel.Kernel
        """
        conv = converter(kind)
        hh = h if isinstance(h, sp.Basic) else conv(np.asarray(h))[()]
        if kind not in self._parts:
            self._parts[kind] = Parts.of(self.source, kind)
        return build_kernel(self.sampler.estimator, self.sampler.integrator,
                            Context(self._parts[kind], hh, conv, self._proj))

    # ------------------------------------------------------------------ description
    @property
    def d(self) -> int:
        """d, the dimension of theta."""
        return self.source.dim

    @property
    def period(self) -> int:
        """P: the stationary law repeats every P steps (1 unless anchors, reuse or momentum refresh make it
        periodic); step k has phase k mod P."""
        return self.kernel.period

    @property
    def state_names(self) -> tuple[tuple[str, int], ...]:
        """The blocks of the whole state, in order: (name, size)."""
        lay = self.kernel.layout
        return tuple(zip(lay.names, lay.sizes, strict=True))

    @property
    def state_dim(self) -> int:
        """D, the dimension of the whole state (theta and the parts' own blocks)."""
        return self.kernel.layout.D

    def _out(self, m: np.ndarray, C: np.ndarray, whole_state: bool):
        return (m, C) if whole_state else (m[: self.d], C[: self.d, : self.d])

    # ------------------------------------------------------------------ finite k
    def moments(self, k: int, whole_state: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The exact mean and covariance after k steps from the start.

        Beyond 64 whole periods the recursion is taken by matrix powers (small states), else step by step.

        Parameters
        ----------
        k : int
            The step, k >= 0 (k = 0: the start).
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Returns
        -------
        mean : numpy.ndarray, shape (d,) or (D,)
            E theta_k (or of the whole state).
        cov : numpy.ndarray, shape (d, d) or (D, D)
            Cov theta_k.

        Raises
        ------
        ParameterError
            When k is not a non-negative integer.
        """
        k = check_int("k", k, 0)
        K, origins = self._centred_or_raw
        m, S = K.initial(self.theta0, self.cov0, first_ok=True)
        P = K.period
        done = 0
        if K.first is not None:  # step 0 differs: take it, then single steps up to a whole period
            while done < k and (done == 0 or done % P):
                m, S = K.advance(done, m, S)
                done += 1
        q, r = divmod(k - done, P)
        if self.explicit and q > POWER_FROM and size(K.layout.n) <= POWER_MAX_S:
            m = np.linalg.matrix_power(solve.period_first(K), q) @ m
            S = unpack(np.linalg.matrix_power(period_matrix(K), q) @ pack(S), K.layout.n)
        else:
            for step in range(q * P):
                m, S = K.first_matrix(step % P) @ m, K.second(step % P, S)
        for step in range(r):
            m, S = K.first_matrix(step) @ m, K.second(step, S)
        D = K.layout.D
        mean = m[:D] + origins[k % P]
        cov = S[:D, :D] - np.outer(m[:D], m[:D])
        return self._out(mean, 0.5 * (cov + cov.T), whole_state)

    def trajectory(self, k_max: int, whole_state: bool = False):
        """The exact mean and covariance at every step 0..k_max, in one pass of the recursions (O(k_max)).

        Parameters
        ----------
        k_max : int
            The last step, >= 0.
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Yields
        ------
        tuple
            (k, E x_k, Cov x_k) for k = 0..k_max.

        Raises
        ------
        ParameterError
            When k_max is not a non-negative integer.
        """
        k_max = check_int("k_max", k_max, 0)
        K, origins = self._centred_or_raw
        m, S = K.initial(self.theta0, self.cov0, first_ok=True)
        D, P = K.layout.D, K.period
        for k in range(k_max + 1):
            cov = S[:D, :D] - np.outer(m[:D], m[:D])
            yield (k,) + self._out(m[:D] + origins[k % P], 0.5 * (cov + cov.T), whole_state)
            m, S = K.advance(k, m, S)

    def mean(self, k: int, whole_state: bool = False) -> np.ndarray:
        """The exact mean E theta_k after k steps (:meth:`moments`).

        Parameters
        ----------
        k : int
            The step, >= 0.
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Returns
        -------
        numpy.ndarray, shape (d,) or (D,)
        """
        return self.moments(k, whole_state)[0]

    def cov(self, k: int, whole_state: bool = False) -> np.ndarray:
        """The exact covariance Cov theta_k after k steps (:meth:`moments`).

        Parameters
        ----------
        k : int
            The step, >= 0.
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Returns
        -------
        numpy.ndarray, shape (d, d) or (D, D)
        """
        return self.moments(k, whole_state)[1]

    # ------------------------------------------------------------------ stationary law
    @cached_property
    def _origins(self) -> list[np.ndarray] | None:
        """Stationary means of the whole state at phases 0..P-1 (None when the mean recursion has none)."""
        K = self.kernel
        try:
            m = solve.stationary_mean(K)
        except ParameterError:
            return None
        out = [m]
        for p in range(K.period - 1):
            out.append(K.first_matrix(p)[:-1] @ np.append(out[-1], 1.0))
        return out

    @cached_property
    def _centred_or_raw(self) -> tuple[Kernel, list[np.ndarray]]:
        """The kernel centred at the stationary means (better rounding), with the origins; the raw kernel if none."""
        if self._origins is None or not np.all(np.isfinite(np.concatenate(self._origins))):
            return self.kernel, [np.zeros(self.kernel.layout.D)] * self.period
        return self.kernel.shifted(self._origins), self._origins

    @cached_property
    def stationary_solve(self) -> solve.Solution:
        """How the stationary covariance of the whole state at phase 0 was solved, with its certificate.

        Returns
        -------
        solve.Solution
            The route ("assembled": one LU factorisation on the symmetric vec space; "operator": Krylov iterations
            preconditioned by the mean part), the residual of the returned covariance, Collatz-Wielandt bounds
            lo <= rho(T) <= hi (hi < 1 certifies mean-square stability) and a bound on its relative error.

        Raises
        ------
        ParameterError
            When the mean recursion has no fixed point (h on or beyond the edge of the mean's stability).

        References
        ----------
        New: ``theory.linear_gaussian.solve`` (the Collatz-Wielandt bounds of positive maps: Krein-Rutman).
        """
        K, _ = self._centred_or_raw
        if self._origins is None:
            self._raise_unstable(None)
        return solve.solution(K, self.explicit)

    @cached_property
    def _stationary(self) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """(means, covariances) of the whole state per phase."""
        K, origins = self._centred_or_raw
        sol = self.stationary_solve
        if not sol.stable:
            self._raise_unstable(sol.radius)
        D = K.layout.D
        covs, S = [sol.cov], np.zeros((D + 1, D + 1))
        S[:D, :D], S[D, D] = sol.cov, 1.0
        for p in range(K.period - 1):
            S = K.second(p, S)
            covs.append(0.5 * (S[:D, :D] + S[:D, :D].T))
        return origins, covs

    def _phase(self, phase) -> int | None:
        P = self.period
        if phase is None:
            if P > 1:
                raise ParameterError(
                    f"phase: the stationary law of this sampler is {P}-periodic (it depends on k mod {P}: anchors, "
                    f"minibatch reuse or momentum refresh); pass phase = 0..{P - 1} or phase = 'average' (the law of "
                    "theta_k at a uniformly random phase, which time averages converge to)")
            return 0
        if phase == "average":
            return None
        return check_int("phase", phase, 0, P - 1)

    def stationary_moments(self, phase=None, whole_state: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The mean and covariance of the stationary law (at ``phase`` for a periodic chain).

        Parameters
        ----------
        phase : int, "average" or None, optional
            For a periodic chain (period P > 1) the phase 0..P-1, or "average" (theta_k at a uniformly random phase,
            the law time averages converge to); None for a chain of period 1.
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Returns
        -------
        mean : numpy.ndarray, shape (d,) or (D,)
        cov : numpy.ndarray, shape (d, d) or (D, D)
            At "average": the mixture of the phases' laws (the mean of the covariances plus the spread of the means).

        Raises
        ------
        ParameterError
            When the chain has no stationary law at this h (past the mean-square stability limit: the message gives
            the limit), or ``phase`` is missing or out of range for a periodic chain.

        References
        ----------
        :doc:`/engine`, sections 7-8 (periodic chains; the stationary law and mean-square stability).
        """
        p = self._phase(phase)
        means, covs = self._stationary
        if p is not None:
            return self._out(means[p], covs[p], whole_state)
        m = sum(means) / len(means)
        C = sum(c + np.outer(mu - m, mu - m) for c, mu in zip(covs, means, strict=True)) / len(means)
        return self._out(m, C, whole_state)

    def stationary_mean(self, phase=None, whole_state: bool = False) -> np.ndarray:
        """E theta under the stationary law (:meth:`stationary_moments`).

        Parameters
        ----------
        phase : int, "average" or None, optional
            For a periodic chain (period P > 1) the phase 0..P-1, or "average" (theta_k at a uniformly random phase,
            the law time averages converge to); None for a chain of period 1.
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Returns
        -------
        numpy.ndarray, shape (d,) or (D,)

        Raises
        ------
        ParameterError
            When the chain has no stationary law at this h (past the mean-square stability limit: the message gives
            the limit), or ``phase`` is missing or out of range for a periodic chain.
        """
        return self.stationary_moments(phase, whole_state)[0]

    def stationary_cov(self, phase=None, whole_state: bool = False) -> np.ndarray:
        """Cov theta under the stationary law (:meth:`stationary_moments`).

        Parameters
        ----------
        phase : int, "average" or None, optional
            For a periodic chain (period P > 1) the phase 0..P-1, or "average" (theta_k at a uniformly random phase,
            the law time averages converge to); None for a chain of period 1.
        whole_state : bool, default False
            False: theta only; True: the whole state (theta, then the integrator's and the estimator's blocks,
            :attr:`state_names`).

        Returns
        -------
        numpy.ndarray, shape (d, d) or (D, D)

        Raises
        ------
        ParameterError
            When the chain has no stationary law at this h (past the mean-square stability limit: the message gives
            the limit), or ``phase`` is missing or out of range for a periodic chain.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (18) (SGLD on the Gaussian toy) and eq. (21) (mSGLD), which it
        reproduces there.
        """
        return self.stationary_moments(phase, whole_state)[1]

    def bias(self, phase=None) -> tuple[np.ndarray, np.ndarray]:
        """The sampler's stationary bias: how far its stationary law of theta is from the exact posterior.

        Parameters
        ----------
        phase : int, "average" or None, optional
            For a periodic chain (SVRG / Chen et al.'s Algorithm 1, minibatch reuse, SGHMC with momentum refresh:
            the law depends on k mod P) the phase 0..P-1, or "average" (theta_k at a uniformly random phase, the law
            time averages converge to); None for a chain of period 1 (a ParameterError for a periodic one).

        Returns
        -------
        mean_bias : numpy.ndarray, shape (d,)
            E_inf theta - mu, with mu = P^{-1} r the posterior mean of the model (prior included; P = P_0 +
            sum_i P_i and r = r_0 + sum_i r_i from the model's affine parts).
        cov_bias : numpy.ndarray, shape (d, d)
            Cov_inf theta - Sigma, with Sigma = P^{-1} the posterior covariance. Both are exact (float64 rounding):
            the discretisation bias of the step size and the minibatch noise's, together; nothing is simulated.

        Raises
        ------
        simulate.validation.ParameterError
            When the chain has no stationary law at this h (past the mean-square stability limit: the message
            gives the limit), or ``phase`` is missing or out of range for a periodic chain.

        References
        ----------
        On the Gaussian toy model the covariance bias is Vollmer, Zygalakis & Teh (2016), eq. (18) minus the
        posterior variance for SGLD, eq. (20) for mSGLD; eq. (17): SGLD's stationary mean is the posterior mean
        (mean bias 0) for every h.
        """
        m, C = self.stationary_moments(phase)
        return m - self.posterior_mean, C - self.posterior_cov

    # ------------------------------------------------------------------ stability
    def spectral_radius(self) -> float:
        """Mean-square spectral radius per step, rho(T)^(1/P) (T the period's second-moment map; < 1 iff stable).

        Computed by a dense eigenvalue solve of the assembled T (which separates eigenvalues of equal modulus, e.g.
        SGHMC's underdamped modes), or for large states by Arnoldi for the eigenvalue of largest real part (the
        Perron root of a positive map), with Collatz-Wielandt bounds by power iteration as the fallback.

        Returns
        -------
        float

        Raises
        ------
        ParameterError
            Only for a large state where neither Arnoldi nor the power iteration resolves rho (never a raw solver
            error).
        """
        return solve.radius(self.kernel, self.explicit) ** (1.0 / self.period)

    def stability_bracket(self, rtol: float = 1e-10):
        """The mean-square stability limit h* = inf{h > 0: rho(T(h)) >= 1} of this sampler (same estimator,
        integrator and model, h varied) as a certified bracket. Assumes the stable set is (0, h*), which holds for
        every sampler here.

        Parameters
        ----------
        rtol : float
            Relative width hi - lo <= rtol hi, 0 < rtol < 0.5 (wider only where the rounding near h* leaves the
            certificates no margin: the bracket is then the tightest certified one).

        Returns
        -------
        stability.StabilityBracket
            lo, hi, the bound rho(T(lo)) <= rho_lo < 1, how hi was shown unstable ("collatz-wielandt", "mean" or
            "eigenvalue") with its bound or value rho_hi >= 1, and the number of linear solves.

        Raises
        ------
        ParameterError
            ``rtol`` outside (0, 0.5), or no stable step size in (h / 2^60, h].

        References
        ----------
        New (``theory.linear_gaussian.stability``; :doc:`/engine`, section 8): Brent's method (Brent 1973, ch. 4) on
        1 / tr X(h),
        X(h) = (I - T(h))^{-1}(I), with Collatz-Wielandt certificates at both ends.
        """
        from .stability import stability_bracket

        return stability_bracket(self, rtol)

    def stability_limit(self, rtol: float = 1e-10) -> float:
        """h*: the upper end of :meth:`stability_bracket` (the least h shown unstable).

        Parameters
        ----------
        rtol : float
            Relative width of the bracket, 0 < rtol < 0.5.

        Returns
        -------
        float
            hi of the certified bracket; inf when every h up to 2^40 times this sampler's is stable.

        Raises
        ------
        ParameterError
            As :meth:`stability_bracket`.
        """
        return self.stability_bracket(rtol).hi

    def _raise_unstable(self, rho: float | None) -> None:
        limit = ""
        if self.explicit and assembly_flops(self.kernel) <= ASSEMBLY_ALWAYS_FLOPS:  # a dozen cheap solves
            try:
                limit = f" The mean-square stability limit of this sampler is h* = {self.stability_limit(1e-6):.6g}."
            except ParameterError:
                limit = ""
        what = "the mean recursion has no fixed point" if rho is None else f"spectral radius {rho:.6g} >= 1"
        raise ParameterError(f"h = {self.h:.6g} is not mean-square stable for this sampler ({what}): there is no "
                             f"stationary law.{limit}")

    # ------------------------------------------------------------------ time averages and series
    def time_average_mse(self, a=None, *, quadratic=None, n_steps: int, burn_in: int = 0, target=None,
                         centre=None) -> float:
        """Exact mean squared error of a time average of the chain, E[(phi_bar - target)^2].

        phi_bar = (1/L) sum_{k=b}^{b+L-1} phi(theta_k) (Vollmer et al. eq. 7: L = ``n_steps``, b = ``burn_in``; with
        b = 0 the start theta_0 is included), from the law's start theta_0 ~ N(theta0, cov0).

        Parameters
        ----------
        a : array_like, shape (d,), optional
            A linear observable phi = a^T theta. Give exactly one of ``a`` and ``quadratic``.
        quadratic : array_like, shape (d, d), optional
            B of a quadratic observable phi = (theta - c)^T B (theta - c).
        n_steps : int
            L >= 1, the window's length.
        burn_in : int, optional
            b >= 0, the first step averaged.
        target : float, optional
            What the average is compared with. Default: the posterior expectation of phi under the model's exact
            posterior N(mu, Sigma) (the same mu, Sigma as :meth:`bias`): a^T mu for a linear phi, and
            trace(B Sigma) + (mu - c)^T B (mu - c) for a quadratic one. So by default the MSE is the squared
            stationary and transient bias plus the variance of the average, against the truth, not against the
            chain's own stationary mean; pass ``target`` for another reference.
        centre : array_like, shape (d,), optional
            c of a quadratic observable (default 0); a linear observable takes none (shift its target instead).

        Returns
        -------
        float
            The MSE; :meth:`time_average` returns the mean, the variance and the target with it.

        Raises
        ------
        simulate.validation.ParameterError
            On a bad observable, window or target (naming it), or when the chain has no stationary law at this h.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (7) (the time average) and eq. (22) (its MSE on the Gaussian toy, the
        closed form this reproduces there); the sum over the window is the engine's, at a cost independent of L
        (``theory.linear_gaussian.time_average``).
        """
        from .time_average import time_average

        return time_average(self, a, quadratic, n_steps, burn_in, target, centre).mse

    def time_average(self, a=None, *, quadratic=None, n_steps: int, burn_in: int = 0, target=None, centre=None):
        """The exact mean, variance and MSE of a time average of the chain, with the target it is compared with.

        Parameters, default target and errors as for :meth:`time_average_mse`.

        Parameters
        ----------
        a : array_like, shape (d,), optional
            A linear observable phi = a^T theta.
        quadratic : array_like, shape (d, d), optional
            B of a quadratic observable phi = (theta - c)^T B (theta - c).
        n_steps : int
            L >= 1, the window's length.
        burn_in : int, optional
            b >= 0, the first step averaged.
        target : float, optional
            What the average is compared with (default: phi's posterior expectation).
        centre : array_like, shape (d,), optional
            c of a quadratic observable (default 0).

        Returns
        -------
        theory.linear_gaussian.time_average.TimeAverage
            A named tuple (mean, variance, mse, target): E phi_bar, Var phi_bar, E[(phi_bar - target)^2] =
            (mean - target)^2 + variance, and the target.

        Raises
        ------
        ParameterError
            On a bad observable, window or target, or when the chain has no stationary law at this h.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eqs. (7) and (22); :doc:`/engine`, sections 9-10.
        """
        from .time_average import time_average

        return time_average(self, a, quadratic, n_steps, burn_in, target, centre)

    def expansion(self, order: int = 2, route: str = "auto", phase=None):
        """The Taylor coefficients in h of the stationary mean and covariance of theta.

        Parameters
        ----------
        order : int, default 2
            The highest power of h, 0 <= order <= 8.
        route : {"auto", "sympy", "numeric"}, default "auto"
            Exact sympy series (auto: for a state dimension D <= 2) or a contour integral in h (numeric).
        phase : int, "average" or None, optional
            The phase of a periodic chain (as for :meth:`stationary_moments`; "average" gives phase 0).

        Returns
        -------
        theory.linear_gaussian.expansion.Series
            A named tuple (mean, cov, route): lists of the coefficients of h^0..h^order, mean[j] (d,) and cov[j]
            (d, d), with E theta = sum_j mean[j] h^j under the stationary law.

        Raises
        ------
        ParameterError
            When order or route is out of range, the phase is invalid, or the state is too large for explicit
            moment matrices (D + 1 > 16).

        References
        ----------
        :doc:`/engine`, section 11; on the Gaussian toy the first-order terms are Vollmer, Zygalakis & Teh (2016),
        eqs. (18)-(19).
        """
        from .expansion import stationary_series

        return stationary_series(self, order, route, phase)

    def mp(self, dps: int = 50):
        """The same law in mpmath at ``dps`` digits: an independent route through the same recursions.

        Parameters
        ----------
        dps : int, default 50
            Decimal digits, >= 16.

        Returns
        -------
        theory.linear_gaussian.mp.MPLaw
            With ``moments(k)``, ``stationary_mean()``, ``stationary_cov()`` (phase 0) and ``spectral_radius()``
            in mpmath numbers.

        Raises
        ------
        ParameterError
            When dps < 16 or the state dimension D exceeds 8 (explicit matrices).

        References
        ----------
        :doc:`/engine`, section 11.
        """
        from .mp import MPLaw

        return MPLaw(self, dps)


def exact_law(sampler, theta0=None, cov0=None) -> ExactLaw:
    """The exact law of ``sampler`` on its model, with no simulation.

    Parameters
    ----------
    sampler : simulate.Sampler
        Any sampler of the workbench on a model that declares an affine gradient (``affine_parts()``: the Gaussian
        mean model, linear regression, the Gaussian toy, your own affine model).
    theta0 : array_like, shape (d,), optional
        The start's mean (default 0, as :func:`simulate.run`).
    cov0 : array_like, shape (d, d), optional
        The start's covariance (default: a point, cov0 = 0).

    Returns
    -------
    ExactLaw
        E theta_k and Cov theta_k for every k, the stationary law and its :meth:`~ExactLaw.bias` against the
        posterior, the mean-square spectral radius and :meth:`~ExactLaw.stability_limit`, the MSE of time averages
        (:meth:`~ExactLaw.time_average_mse`), series in h and the same at 50 digits.

    Raises
    ------
    simulate.validation.ParameterError
        When the model has no affine gradient or a start has the wrong shape. A step size past the mean-square
        limit is accepted (the finite-k moments exist); stationary quantities then raise, and
        :func:`theory.check_stable` refuses such a sampler before a run.

    References
    ----------
    The engine's derivation (moment recursions of an affine chain with random coefficients, exact minibatch
    moments, stability, periodic chains, time-average sums) is new; on the Gaussian toy it reproduces Vollmer,
    Zygalakis & Teh (2016), eqs. (14)-(22).
    """
    return ExactLaw(sampler, theta0, cov0)


def _vector(name: str, v, d: int) -> np.ndarray:
    a = check_finite_array(name, v, ndim=(0, 1)).reshape(-1)
    if a.shape != (d,):
        raise ParameterError(f"{name} must have shape ({d},), got {np.shape(v)}")
    return a


def _covariance(name: str, C, d: int) -> np.ndarray:
    a = check_finite_array(name, C, ndim=(2,))
    if a.shape != (d, d) or not np.allclose(a, a.T) or np.linalg.eigvalsh(0.5 * (a + a.T))[0] < -1e-12:
        raise ParameterError(f"{name} must be a symmetric positive semi-definite ({d}, {d}) matrix")
    return 0.5 * (a + a.T)


__all__ = ["ExactLaw", "exact_law"]
