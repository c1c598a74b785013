"""What the explorer minimises: the MSE of a time average (1/L) sum_{k=b}^{b+L-1} phi(theta_k) as an estimate of
its posterior expectation (Vollmer et al. eq. 7), and the budget that fixes b and L.

Objectives (:class:`Objective`):

* ``mean``: phi = a^T theta (default a = e_1), estimating a^T E[theta];
* ``variance``: phi = (a^T (theta - mu))^2 with mu the exact posterior mean (the mode, for the Laplace model),
  estimating the posterior variance a^T Cov[theta] a: the centred second moment, with the centre known;
* ``quadratic``: phi = theta^T B theta (default B = e_1 e_1^T, Chen et al.'s and Vollmer et al.'s theta^2),
  estimating its posterior expectation.

Budgets (:class:`Budget`) count per-datum gradient evaluations (``unit="gradients"``) or data passes (N of them
each); a sampler with one-off cost s and cost c per step gets K = floor((budget - s) / c) steps, of which the first
``burn_in`` fraction are discarded: b = floor(burn_in K), L = K - b.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError, check_finite_array, check_positive

#: The objectives' kinds: phi = a^T theta ("mean"), (a^T (theta - mu))^2 ("variance") or theta^T B theta ("quadratic").
KINDS = ("mean", "variance", "quadratic")
#: A budget's units: per-datum gradient evaluations or passes over the data.
UNITS = ("gradients", "passes")


@dataclass(frozen=True)
class Objective:
    """What the explorer minimises: the MSE of the time average of a test function phi (module docstring).

    Build one with :meth:`mean`, :meth:`variance` or :meth:`quadratic`.

    Parameters
    ----------
    kind : str
        "mean" (phi = a^T theta), "variance" (phi = (a^T (theta - mu))^2) or "quadratic" (phi = theta^T B theta).
    vector : tuple, optional
        a (mean, variance) or the rows of B (quadratic); None for the default a = e_1, B = e_1 e_1^T.

    Raises
    ------
    simulate.validation.ParameterError
        For another ``kind``.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (7): the time average and its MSE.
    """

    kind: str = "mean"
    vector: tuple | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ParameterError(f"objective must be one of {KINDS}, got {self.kind!r}")

    @classmethod
    def mean(cls, a=None) -> Objective:
        """The MSE of the time average of a^T theta, estimating a^T E[theta].

        Parameters
        ----------
        a : array_like, shape (d,), optional
            The linear functional (default e_1: theta_1).

        Returns
        -------
        Objective
            The objective.
        """
        return cls("mean", None if a is None else tuple(np.ravel(a).tolist()))

    @classmethod
    def variance(cls, a=None) -> Objective:
        """The MSE of the time average of (a^T (theta - mu))^2, estimating the posterior variance a^T Cov[theta] a.

        Parameters
        ----------
        a : array_like, shape (d,), optional
            The direction (default e_1); mu is the exact posterior mean (the mode, for the Laplace model).

        Returns
        -------
        Objective
            The objective.
        """
        return cls("variance", None if a is None else tuple(np.ravel(a).tolist()))

    @classmethod
    def quadratic(cls, B=None) -> Objective:
        """The MSE of the time average of theta^T B theta, estimating its posterior expectation.

        Parameters
        ----------
        B : array_like, shape (d, d), optional
            A symmetric matrix (default e_1 e_1^T: theta_1^2, Chen et al.'s and Vollmer et al.'s theta^2).

        Returns
        -------
        Objective
            The objective.
        """
        return cls("quadratic", None if B is None else tuple(map(tuple, np.atleast_2d(B).tolist())))

    @property
    def label(self) -> str:
        """The objective in words, for tables and pages."""
        what = {"mean": "posterior mean", "variance": "posterior variance", "quadratic": "quadratic observable"}
        phi = {"mean": "a^T theta", "variance": "(a^T (theta - mu))^2", "quadratic": "theta^T B theta"}[self.kind]
        i = self._unit()
        if i is not None:
            phi = {"mean": f"theta_{i}", "variance": f"(theta_{i} - mu_{i})^2", "quadratic": f"theta_{i}^2"}[self.kind]
        return f"MSE of the {what[self.kind]} estimate (time average of {phi})"

    def _unit(self) -> int | None:
        """i (1-based) when phi reads one coordinate theta_i (a = e_i, or B = e_i e_i^T), else None."""
        if self.vector is None:
            return 1
        v = np.asarray(self.vector, dtype=float)
        v = np.diag(v) if v.ndim == 2 and np.count_nonzero(v) == 1 else v
        if v.ndim == 1 and np.count_nonzero(v) == 1 and v.max() == 1.0:
            return int(np.argmax(v)) + 1
        return None

    def direction(self, d: int) -> np.ndarray:
        """The linear functional whose effective sample size an optimum reports: a of a mean or variance objective,
        e_1 for a quadratic one.

        Parameters
        ----------
        d : int
            The dimension.

        Returns
        -------
        numpy.ndarray, shape (d,)
            The functional.
        """
        return np.eye(d)[0] if self.kind == "quadratic" else self._a(d)

    def _a(self, d: int) -> np.ndarray:
        a = np.eye(d)[0] if self.vector is None else check_finite_array("a", self.vector, ndim=(1,))
        if a.shape != (d,):
            raise ParameterError(f"a must have shape ({d},), got {a.shape}")
        return a

    def _B(self, d: int) -> np.ndarray:
        if self.kind == "quadratic":
            B = np.outer(np.eye(d)[0], np.eye(d)[0]) if self.vector is None else check_finite_array(
                "B", self.vector, ndim=(2,))
            if B.shape != (d, d) or not np.allclose(B, B.T):
                raise ParameterError(f"B must be a symmetric ({d}, {d}) matrix")
            return B
        a = self._a(d)
        return np.outer(a, a)

    def exact(self, law, n_steps: int, burn_in: int):
        """The time average's exact statistics under a sampler's exact law.

        Parameters
        ----------
        law : theory.ExactLaw
            The sampler's exact law.
        n_steps : int
            L, the window's length.
        burn_in : int
            b, the first step averaged.

        Returns
        -------
        TimeAverage
            (mean, variance, mse, target): ``theory.ExactLaw.time_average`` with this objective's phi; the target is
            the posterior expectation of phi.
        """
        d = law.d
        if self.kind == "mean":
            return law.time_average(self._a(d), n_steps=n_steps, burn_in=burn_in)
        centre = law.posterior_mean if self.kind == "variance" else None
        return law.time_average(quadratic=self._B(d), n_steps=n_steps, burn_in=burn_in, centre=centre)

    def stationary_value(self, law) -> float:
        """E phi under the sampler's stationary law (averaged over the phases of a periodic chain).

        Parameters
        ----------
        law : theory.ExactLaw
            The sampler's exact law.

        Returns
        -------
        float
            The stationary expectation of phi.

        Raises
        ------
        simulate.validation.ParameterError
            When the chain has no stationary law at its h.
        """
        phase = "average" if law.period > 1 else None
        m, C = law.stationary_moments(phase)
        if self.kind == "mean":
            return float(self._a(law.d) @ m)
        B = self._B(law.d)
        s = m - law.posterior_mean if self.kind == "variance" else m
        return float(np.trace(B @ C) + s @ B @ s)

    def phi(self, theta: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """phi at the chains' states (the simulation's test function).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' states.
        mu : numpy.ndarray, shape (d,)
            The posterior mean (the centre of the "variance" objective).

        Returns
        -------
        numpy.ndarray
            phi per chain, shape (M, 1).
        """
        d = theta.shape[1]
        if self.kind == "mean":
            return (theta @ self._a(d))[:, None]
        x = theta - mu if self.kind == "variance" else theta
        return np.einsum("mi,ij,mj->m", x, self._B(d), x)[:, None]


@dataclass(frozen=True)
class Budget:
    """A computing budget: per-datum gradient evaluations or data passes, and the share of it spent on burn-in.

    Parameters
    ----------
    amount : float
        The budget, > 0.
    unit : str
        "gradients" (per-datum gradient evaluations) or "passes" (N of them each).
    burn_in : float
        The fraction of the steps discarded before the time average, 0 <= burn_in < 1 (0: average from theta_0,
        as Chen et al.'s Figure 1).

    Raises
    ------
    simulate.validation.ParameterError
        For a budget that is not positive, another unit or a burn-in outside [0, 1).

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Assumption 1 (a budget linear in the minibatch size and the number of
    samples) and Remark 8 (its form for variance-reduced samplers).
    """

    amount: float
    unit: str = "gradients"
    burn_in: float = 0.0

    def __post_init__(self) -> None:
        check_positive("budget", self.amount)
        if self.unit not in UNITS:
            raise ParameterError(f"budget unit must be one of {UNITS}, got {self.unit!r}")
        if not (math.isfinite(self.burn_in) and 0.0 <= self.burn_in < 1.0):
            raise ParameterError(f"burn_in must satisfy 0 <= burn_in < 1 (a fraction of the steps), got {self.burn_in}")

    def gradients(self, N: int) -> float:
        """The budget in per-datum gradient evaluations.

        Parameters
        ----------
        N : int
            The number of data (a pass costs N).

        Returns
        -------
        float
            The number of per-datum gradient evaluations.
        """
        return float(self.amount) * (N if self.unit == "passes" else 1)

    def steps(self, sampler) -> tuple[int, int] | None:
        """The window this budget buys a sampler: K = floor((budget - setup) / cost per step) steps, the first
        b = floor(burn_in K) discarded.

        Parameters
        ----------
        sampler : simulate.Sampler
            The sampler (its estimator's one-off ``setup_grads`` and its ``grads_per_step()``).

        Returns
        -------
        tuple of int or None
            (b, L) with L = K - b >= 1, or None when not one step of the average fits.
        """
        N = sampler.model.n_data
        setup = float(getattr(sampler.estimator, "setup_grads", 0) or 0)
        K = int(math.floor((self.gradients(N) - setup) / sampler.grads_per_step() + 1e-9))
        b = int(math.floor(self.burn_in * K))
        if K - b < 1:
            return None
        return b, K - b

    def describe(self, N: int | None = None) -> str:
        """The budget in words (in both units when ``N`` is given).

        Parameters
        ----------
        N : int, optional
            The number of data.

        Returns
        -------
        str
            E.g. "100000 gradient evaluations (100 data passes)".
        """
        if self.unit == "passes":
            text = f"{self.amount:g} data passes" + (f" ({self.gradients(N):.3g} gradient evaluations)" if N else "")
        else:
            text = f"{self.amount:.3g} gradient evaluations" + (f" ({self.amount / N:.3g} data passes)" if N else "")
        return text + (f", burn-in {self.burn_in:.0%} of the steps" if self.burn_in else "")


__all__ = ["KINDS", "UNITS", "Budget", "Objective"]
