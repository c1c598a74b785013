"""SGLD-CV: the control-variate gradient estimator of Baker, Fearnhead, Fox & Nemeth (2019), Algorithm 1.

Estimator (the paper's "(4.1)", unnumbered; docs/papers/baker.md sec. 1.3):

    g(theta) = grad log p(theta) + sum_{i=1}^N g_i(theta_hat) + (N/n) sum_{i in S} [g_i(theta) - g_i(theta_hat)],

g_i(theta) = grad log p(x_i | theta), with the SAME minibatch S (size n) at theta and at theta_hat; the variance
reduction depends on that. It is unbiased for grad log posterior(theta) for any theta_hat. Its exact noise
covariance given theta is K_n Cov_i[g_i(theta) - g_i(theta_hat)] N (divisor N), K_n = N/n (with replacement) or
N(N - n)/(n(N - 1)) (without; Baker et al. App. A.2.1, docs/papers/baker.md sec. 2).

theta_hat (an estimate of the posterior mode) is given, or found once by stochastic optimisation
(:func:`simulate.estimators.mode.sgd_mode`). The full gradient at theta_hat is then computed once (N per-datum
gradients). Cost: ``grads_per_step`` = 2n per chain-step (g_i at theta and at theta_hat; caching g_i(theta_hat)
would halve it at O(Nd) memory); ``setup_grads`` = N + the mode search's gradients, reported separately (one-off,
shared by all chains).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import namespace_of
from ..contracts import Model, SupportsDiffSum
from ..validation import ParameterError, check_finite_array
from .base import EstimatorBase
from .minibatch import Minibatch
from .mode import ModeEstimate, sgd_mode


def grad_log_lik_diff_sum(model: Model, theta: np.ndarray, theta_hat: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """sum_j [g_{idx[j,m]}(theta_m) - g_{idx[j,m]}(theta_hat_m)], shape (M, d): one fused pass over the minibatch
    where the model provides ``grad_log_lik_diff_sum`` (logistic regression), else two ``grad_log_lik_sum`` calls.

    Parameters
    ----------
    model : Model
        The model.
    theta : numpy.ndarray, shape (M, d)
        The chains' points.
    theta_hat : numpy.ndarray, shape (M, d)
        The centring point per chain.
    idx : numpy.ndarray, shape (n, M)
        The minibatch indices, the same at both points.

    Returns
    -------
    numpy.ndarray, shape (M, d)
        The summed differences.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Algorithm 1 and the unnumbered estimator of Sec. 4.1 (the correction term).
    """
    if isinstance(model, SupportsDiffSum):
        return model.grad_log_lik_diff_sum(theta, theta_hat, idx)
    out = model.grad_log_lik_sum(theta, idx)
    out -= model.grad_log_lik_sum(theta_hat, idx)
    return out


@dataclass(frozen=True, eq=False)
class ControlVariate(EstimatorBase):
    """SGLD-CV gradient estimator (Baker et al. 2019, Algorithm 1 / eq. "(4.1)").

    ``theta_hat``: (d,) centring point; ``grad_lik_hat``: (d,) sum_i g_i(theta_hat) (computed once by
    :meth:`at`); ``n``: minibatch size; ``replace``: draw with replacement (default without);
    ``setup_grads``: one-off per-datum gradient evaluations (full gradient + mode search).

    Parameters
    ----------
    n : int
        The minibatch size, 1 <= n <= N.
    theta_hat : numpy.ndarray, shape (d,)
        The centring point (an estimate of the posterior mode).
    grad_lik_hat : numpy.ndarray, shape (d,)
        sum_i g_i(theta_hat), computed once by :meth:`at`.
    replace : bool, default False
        Draw the minibatch with replacement.
    setup_grads : int, default 0
        One-off per-datum gradient evaluations (the full gradient and the mode search).
    mode_search : ModeEstimate or None
        The mode search that found theta_hat, if one did.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Algorithm 1 and the unnumbered estimator of Sec. 4.1; the noise covariance:
    Baker et al. (2019), App. A.2.1.
    """

    n: int
    theta_hat: np.ndarray
    grad_lik_hat: np.ndarray
    replace: bool = False
    setup_grads: int = 0
    mode_search: ModeEstimate | None = field(default=None)

    name = "control_variate"

    @classmethod
    def at(cls, model: Model, n: int, theta_hat, replace: bool = False,
           mode_search: ModeEstimate | None = None) -> ControlVariate:
        """Build the estimator centred at ``theta_hat``: one full-data gradient sum_i g_i(theta_hat).

        Parameters
        ----------
        model : Model
            The model.
        n : int
            The minibatch size n.
        theta_hat : array_like, shape (d,)
            The centring point.
        replace : bool, default False
            Draw the minibatch with replacement.
        mode_search : ModeEstimate or None, optional
            The mode search that found theta_hat (its gradients join ``setup_grads``).

        Returns
        -------
        ControlVariate
            The estimator, checked against ``model``.

        Raises
        ------
        ParameterError
            For a theta_hat of the wrong shape or not finite, or n outside 1..N.
        """
        th = np.asarray(check_finite_array("theta_hat", theta_hat, ndim=(1, 2)), dtype=np.float64).reshape(-1)
        if th.shape[0] != model.dim:
            raise ParameterError(f"theta_hat must have shape ({model.dim},), got {np.shape(theta_hat)}")
        g = model.grad_log_lik_full(th[None, :])[0]
        extra = 0 if mode_search is None else mode_search.grads
        est = cls(n, th, g, replace, model.n_data + extra, mode_search)
        est.check(model)
        return est

    def check(self, model: Model) -> None:
        """Check n, replace and the shapes of theta_hat and grad_lik_hat.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When n is not in 1..N, replace is not a bool or a shape is not (d,).
        """
        Minibatch.check(self, model)  # n in [1, N], replace a bool
        if np.shape(self.theta_hat) != (model.dim,) or np.shape(self.grad_lik_hat) != (model.dim,):
            raise ParameterError(f"theta_hat and grad_lik_hat must have shape ({model.dim},) for this model")

    scale = Minibatch.scale  # N / n
    finite_population_factor = Minibatch.finite_population_factor  # 1, or (N - n)/(N - 1) without replacement

    def anchor(self, theta: np.ndarray) -> np.ndarray:
        """theta_hat broadcast to the chains, (M, d).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            The chains' points (only their shape is read).

        Returns
        -------
        numpy.ndarray, shape (M, d)
            theta_hat broadcast to the chains (a read-only view).
        """
        return namespace_of(theta).broadcast_to(self.theta_hat, theta.shape)

    draw = Minibatch.draw  # the minibatch indices (n, M)
    draw_support = Minibatch.draw_support  # every minibatch with its probability

    def apply(self, model: Model, theta: np.ndarray, state, idx: np.ndarray):
        corr = grad_log_lik_diff_sum(model, theta, self.anchor(theta), idx)  # the same minibatch at theta_hat
        corr *= self.scale(model)
        corr += self.grad_lik_hat
        corr += model.grad_log_prior(theta)
        return corr, state

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """Exact Cov(g | theta) = (N^2/n) f Cov_i[g_i(theta) - g_i(theta_hat)] (divisor N), shape (M, d, d).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The points (required).

        Returns
        -------
        numpy.ndarray, shape (M, d, d)
            The exact covariance.

        Raises
        ------
        ParameterError
            Without theta.

        References
        ----------
        Baker et al. (2019), App. A.2.1.
        """
        if theta is None:
            raise ParameterError("theta must be given: the control-variate noise depends on theta")
        theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
        N = model.n_data
        idx = np.broadcast_to(np.arange(N)[:, None], (N, theta.shape[0]))
        diff = model.grad_log_lik(theta, idx) - model.grad_log_lik(self.anchor(theta), idx)
        diff -= diff.mean(axis=0)
        S = np.einsum("nmi,nmj->mij", diff, diff) / N
        return S * (N * N / self.n * self.finite_population_factor(model))

    def grads_per_step(self, model: Model) -> float:
        """2n per chain-step (g_i at theta and at theta_hat on the same minibatch); one-off cost in setup_grads.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
            2n.
        """
        return 2.0 * self.n


def control_variate(model: Model, n: int, theta_hat=None, replace: bool = False, *, opt_step: float | None = None,
                    opt_iters: int = 10_000, opt_n: int | None = None, opt_seed: int = 0,
                    opt_refine: int = 200) -> ControlVariate:
    """The CV estimator; theta_hat=None runs :func:`sgd_mode` (minibatch ``opt_n`` = n by default, then up to
    ``opt_refine`` full-gradient steps) first.

    Parameters
    ----------
    model : Model
        The model.
    n : int
        The minibatch size n.
    theta_hat : array_like, shape (d,), optional
        The centring point; None: found by :func:`sgd_mode`.
    replace : bool, default False
        Draw the minibatch with replacement.
    opt_step : float, optional
        The SGD step of the mode search (default 1/L).
    opt_iters : int, default 10000
        SGD iterations of the mode search.
    opt_n : int, optional
        The minibatch size of the mode search (default n).
    opt_seed : int, default 0
        The mode search's seed.
    opt_refine : int, default 200
        At most this many full-gradient steps after SGD.

    Returns
    -------
    ControlVariate
        The estimator (its ``mode_search`` records the search).

    Raises
    ------
    ParameterError
        For invalid settings (see :func:`sgd_mode` and :meth:`ControlVariate.at`).

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Algorithm 1 and the unnumbered estimator of Sec. 4.1, step 1 (the mode
    search).
    """
    mode = None
    if theta_hat is None:
        mode = sgd_mode(model, n if opt_n is None else opt_n, step=opt_step, n_iter=opt_iters, seed=opt_seed,
                        refine=opt_refine)
        theta_hat = mode.theta_hat
    return ControlVariate.at(model, n, theta_hat, replace, mode)


__all__ = ["ControlVariate", "control_variate", "grad_log_lik_diff_sum"]
