"""Numeric theory of one toy chain (method, data constants, h), read off a simulate sampler or given directly."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError, check_step_size
from theory.numeric import evaluate_mp, lambdify_toy
from theory.schemes import METHODS
from theory.symbols import EB, VB, A, h, k, m0, v0
from theory.toy import moments as tm
from theory.toy.constants import ToyConstants, toy_constants


@dataclass(frozen=True)
class ToyChain:
    """The exact mean and variance of theta_k for Euler, SGLD or mSGLD on the 1-D Gaussian toy, in closed form.

    Build one directly or from a simulator sampler with :func:`theory.toy.chain.toy_chain`;
    :func:`theory.exact_law` gives the same law for any sampler.

    Parameters
    ----------
    method : {"euler", "sgld", "msgld"}
        The scheme.
    constants : ToyConstants
        A, E(B), Var(B) of the data set and subset size (:func:`theory.toy_constants`).
    h : float
        The step size, 0 < h < 2/A (both recurrences contract).

    Raises
    ------
    ParameterError
        When method is unknown or h is not in (0, 2/A).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Section 2, eqs. (14)-(21) (:doc:`/papers/vollmer`, sec. 3).
    """

    method: str
    constants: ToyConstants
    h: float

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ParameterError(f"method must be one of {METHODS}, got {self.method!r}")
        check_step_size(self.h, 2.0 / self.constants.A, "stability of the toy chain, h < 2/A")

    def _args(self, kk=0, mm0=0.0, vv0=0.0):
        c = self.constants
        return (c.A, c.EB, c.VB, self.h, kk, mm0, vv0)

    def _log_abs_a(self) -> float:
        """log|a|, a = 1 - A h, without cancellation: log1p(-A h) for A h <= 1, log1p(A h - 2) above."""
        x = self.constants.A * self.h
        return float(np.log1p(-x) if x <= 1.0 else np.log1p(x - 2.0))

    def _a_pow(self, k_steps: np.ndarray, double: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(a^k, 1 - a^k) (of a^(2k) with ``double``) via exp/expm1 of k log|a|: accurate for |a| ~ 1, k ~ 1e9."""
        x = self.constants.A * self.h
        kk = 2.0 * k_steps if double else k_steps
        if x == 1.0:
            return np.where(kk == 0, 1.0, 0.0), np.where(kk == 0, 0.0, 1.0)
        t = kk * self._log_abs_a()
        sign = np.where((x > 1.0) & (np.mod(kk, 2) == 1), -1.0, 1.0)
        p = sign * np.exp(t)
        return p, np.where(sign > 0, -np.expm1(t), 1.0 - p)

    def mean(self, k_steps, theta0_mean: float) -> np.ndarray:
        """E theta_k = mu + a^k (E theta_0 - mu), mu = E_B/A, a = 1 - A h.

        The closed form in k of :func:`theory.toy.moments.mean_at_step`, evaluated with a^k = exp(k log ``|a|``) so
        that k up to 1e9 loses no accuracy.

        Parameters
        ----------
        k_steps : array_like
            Steps k >= 0.
        theta0_mean : float
            E theta_0.

        Returns
        -------
        numpy.ndarray
            Of the shape of ``k_steps``.
        """
        k_steps = np.asarray(k_steps, dtype=np.float64)
        mu = self.stationary_mean()
        p, _ = self._a_pow(k_steps)
        return np.asarray(mu + p * (float(theta0_mean) - mu))

    def variance(self, k_steps, theta0_var: float = 0.0) -> np.ndarray:
        """Var theta_k = a^(2k) v_0 + q (1 - a^(2k))/(1 - a^2), q the per-step variance, 1 - a^2 = A h (2 - A h).

        The closed form of :func:`theory.toy.moments.variance_at_step` without its cancellations near h = 0 and
        h = 2/A; q is that of :func:`theory.toy.moments.one_step`.

        Parameters
        ----------
        k_steps : array_like
            Steps k >= 0.
        theta0_var : float, default 0.0
            Var theta_0.

        Returns
        -------
        numpy.ndarray
            Of the shape of ``k_steps``.
        """
        k_steps = np.asarray(k_steps, dtype=np.float64)
        c = self.constants
        q = float(lambdify_toy(tm.one_step(self.method)[2])(*self._args()))
        p2, one_minus = self._a_pow(k_steps, double=True)
        x = c.A * self.h
        return np.asarray(p2 * float(theta0_var) + q * one_minus / (x * (2.0 - x)))

    def stationary_mean(self) -> float:
        """The stationary mean E_B/A = mu_p (eq. (17)).

        Returns
        -------
        float
        """
        return float(lambdify_toy(tm.toy_stationary_mean(self.method))(*self._args()))

    def stationary_variance(self) -> float:
        """The stationary variance (eq. (18); eq. (21) for mSGLD).

        Returns
        -------
        float
        """
        return float(lambdify_toy(tm.stationary_variance(self.method))(*self._args()))

    def bias_theta2(self, dps: int | None = None) -> float:
        """The asymptotic bias of phi = theta^2, Var_inf - sigma_p^2.

        Parameters
        ----------
        dps : int, optional
            Evaluate in mpmath at this many digits (default: float64).

        Returns
        -------
        float
        """
        expr = tm.asymptotic_bias_theta2(self.method)
        if dps is None:
            return float(lambdify_toy(expr)(*self._args()))
        c = self.constants
        return float(evaluate_mp(expr, {A: c.A, EB: c.EB, VB: c.VB, h: self.h, k: 0, m0: 0, v0: 0}, dps))

    def mixing_factor(self) -> float:
        """``|1 - A h|``: the mean's contraction per step (the variance contracts by its square).

        Returns
        -------
        float
        """
        return abs(1.0 - self.constants.A * self.h)


def method_of(sampler) -> str:
    """The scheme of a simulator sampler: 'euler', 'sgld' or 'msgld', read from its integrator and estimator.

    Parameters
    ----------
    sampler : simulate.Sampler
        Langevin with the full gradient (Euler) or a minibatch (SGLD), or ModifiedLangevin with a minibatch (mSGLD),
        at temperature 1.

    Returns
    -------
    str

    Raises
    ------
    ParameterError
        For any other sampler, or a temperature other than 1.
    """
    from simulate.estimators.minibatch import FullGradient, Minibatch
    from simulate.integrators.langevin import Langevin, ModifiedLangevin

    est, integ = sampler.estimator, sampler.integrator
    if getattr(integ, "temperature", 1.0) != 1.0:
        raise ParameterError(f"no toy-model theory for sampler {sampler.name!r} at temperature {integ.temperature:g} "
                             "(Vollmer et al.'s laws are at T = 1; theory.exact_law covers any T)")
    if isinstance(integ, Langevin) and isinstance(est, FullGradient):
        return "euler"
    if isinstance(integ, Langevin) and isinstance(est, Minibatch):
        return "sgld"
    if isinstance(integ, ModifiedLangevin) and isinstance(est, Minibatch):
        return "msgld"
    raise ParameterError(f"no toy-model theory for sampler {sampler.name!r}")


def toy_chain(sampler) -> ToyChain:
    """The toy theory of a simulator sampler on a 1-D GaussianMeanModel: Vollmer et al.'s closed forms.

    It reads the same description the simulator runs; ``theory.exact_law(sampler)`` is the exact engine's law of any
    sampler, equal to these on the toy.

    Parameters
    ----------
    sampler : simulate.Sampler
        Euler, SGLD or mSGLD (:func:`method_of`) on a 1-D :class:`simulate.GaussianMeanModel`.

    Returns
    -------
    ToyChain

    Raises
    ------
    ParameterError
        When the model is not a 1-D GaussianMeanModel, the sampler is none of the three, or h is not in (0, 2/A).
    """
    from simulate.models.gaussian import GaussianMeanModel

    model = sampler.model
    if not isinstance(model, GaussianMeanModel) or model.dim != 1:
        raise ParameterError("toy theory needs a 1-D GaussianMeanModel")
    method = method_of(sampler)
    est = sampler.estimator
    n = model.n_data if method == "euler" else est.n
    replace = False if method == "euler" else est.replace
    consts = toy_constants(model.data, n, replace, model.sigma_x, model.sigma0)
    return ToyChain(method, consts, sampler.h)
