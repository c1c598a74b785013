"""The base class of the models: :class:`ModelBase` satisfies the :class:`simulate.Model` contract with generic
defaults (a subclass defines the per-datum gradients and the prior's).

Shapes: ``theta`` is ``(M, d)`` (M chains); minibatch indices are ``(n, M)`` (one column per chain,
so each row is contiguous); per-datum gradients are ``(n, M, d)``.
"""

from __future__ import annotations

import numpy as np

from ..validation import ParameterError, check_finite_array


class ModelBase:
    """Base class of a Bayesian model with N data and a d-dimensional parameter (:class:`simulate.Model`).

    A subclass sets ``n_data`` and ``dim`` and defines :meth:`grad_log_prior` and :meth:`grad_log_lik`; the base
    class derives the minibatch and full-data sums, the posterior's gradient, the per-datum gradient covariance and
    the check of a chain state from them (a subclass overrides them where it has faster or closed forms).

    Attributes
    ----------
    n_data : int
        N, the number of data.
    dim : int
        d, the dimension of theta.
    grad_cov_is_constant : bool
        True when :meth:`per_datum_grad_cov` does not depend on theta (it may then return (d, d)); default False.
    grad_lipschitz : float or None
        The Lipschitz constant of grad log posterior (None if unknown, the default): it gives the samplers' step-size
        bound.
    """

    n_data: int
    dim: int

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """The prior's gradient grad log pi_0(theta) (zeros for a flat prior).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        raise NotImplementedError

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Per-datum gradients grad log p(x_i | theta_m) for i = idx[:, m].

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (n, M, d)
        """
        raise NotImplementedError

    def grad_log_lik_sum(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The sum of a minibatch's per-datum gradients, sum_j grad log p(x_{idx[j, m]} | theta_m).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.
        idx : numpy.ndarray of int, shape (n, M)
            Data indices, one column per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        return self.grad_log_lik(theta, idx).sum(axis=0)

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        """The full-data likelihood gradient sum_{i=1}^N grad log p(x_i | theta_m).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)
        """
        idx = np.broadcast_to(np.arange(self.n_data)[:, None], (self.n_data, theta.shape[0]))
        return self.grad_log_lik_sum(theta, idx)

    def grad_log_post(self, theta: np.ndarray) -> np.ndarray:
        """The posterior's gradient grad log pi(theta) = grad log pi_0(theta) + sum_i grad log p(x_i | theta).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain.

        Returns
        -------
        numpy.ndarray, shape (M, d)

        References
        ----------
        Welling & Teh (2011), eq. (4) (the gradient SGLD estimates).
        """
        return self.grad_log_prior(theta) + self.grad_log_lik_full(theta)

    def per_datum_grad_cov(self, theta: np.ndarray) -> np.ndarray:
        """The empirical covariance (divisor N) of the N per-datum gradients at each theta_m.

        The minibatch estimator's noise covariance is N^2 / n times it (with replacement; times (N - n)/(N - 1)
        without: Vollmer et al. 2016, eq. (16), for any model).

        Parameters
        ----------
        theta : numpy.ndarray, shape (M, d)
            One point per chain (a model with ``grad_cov_is_constant`` also accepts None).

        Returns
        -------
        numpy.ndarray, shape (M, d, d)
            Or (d, d) for a model whose covariance does not depend on theta.
        """
        idx = np.broadcast_to(np.arange(self.n_data)[:, None], (self.n_data, theta.shape[0]))
        g = self.grad_log_lik(theta, idx)  # (N, M, d)
        gc = g - g.mean(axis=0)
        return np.einsum("nmi,nmj->mij", gc, gc) / self.n_data

    grad_cov_is_constant: bool = False
    grad_lipschitz: float | None = None

    def check_theta(self, theta, name: str = "theta") -> np.ndarray:
        """Validate a chain state.

        Parameters
        ----------
        theta : array_like, shape (M, d), or (M,) when d = 1
            The chains' points.
        name : str, default "theta"
            The parameter's name in an error message.

        Returns
        -------
        numpy.ndarray, shape (M, d)
            float64.

        Raises
        ------
        ParameterError
            When theta is not finite real numbers or has another shape.
        """
        arr = check_finite_array(name, theta, ndim=(1, 2))
        if arr.ndim == 1:
            if self.dim != 1:
                raise ParameterError(f"{name} must have shape (M, {self.dim}), got {arr.shape}")
            arr = arr[:, None]
        if arr.shape[1] != self.dim:
            raise ParameterError(f"{name} must have shape (M, {self.dim}), got {arr.shape}")
        return arr


__all__ = ["ModelBase"]
