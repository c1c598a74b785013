"""Zero-variance (ZV) post-processing of SG-MCMC output: Baker et al. (2019), Sec. 5, Algorithm 2, corrected.

For a polynomial Q, the ZV control variate (Mira, Solgi & Imparato 2013) is h_Q(theta) = -(1/2) Laplacian Q +
grad Q . z, z = -(1/2) grad log posterior(theta); it has mean zero under the posterior (integration by parts).
With a noisy unbiased gradient estimate z_hat = -(1/2) g_hat (the paper's eq. 10) it still does (Friel et al. 2016).
The estimator of E f(theta) is f + a^T h, with the variance-minimising coefficients

    a* = -Var(h)^{-1} Cov(h, f)        (Baker et al. Sec. 5; docs/papers/baker.md secs. 1.5 and 6: the paper
                                        prints a = +Var^{-1} Cov, which INCREASES the variance; its operator
                                        "Laplacian Q + grad Q . z" is also wrong for non-linear Q).

Control variates (d-dimensional theta): linear Q = theta_j gives h_j = z_j (d terms; the paper's choice, eq. 11);
quadratic adds Q = theta_j^2 -> 2 theta_j z_j - 1 and Q = theta_j theta_k (j < k) -> theta_k z_j + theta_j z_k.
Coefficients are estimated per chain from the chain itself (Algorithm 2: the same sample fits a and is averaged),
or pooled over chains. Arrays: traces (T, M, d), gradient estimates (T, M, d), f values (T, M, k).
"""

from __future__ import annotations

import numpy as np

from ..estimators.base import EstimatorBase
from ..runtime.runner import run
from ..validation import ParameterError, check_finite_array, check_int

SIGNS = ("corrected", "printed")  # a* = -Var(h)^{-1} Cov(h, f), or the paper's printed +Var(h)^{-1} Cov(h, f)


OPERATORS = ("corrected", "printed")  # -(1/2) Laplacian Q + grad Q . z, or the paper's printed Laplacian Q + ...


def zv_controls(theta: np.ndarray, grads: np.ndarray, degree: int = 1, operator: str = "corrected") -> np.ndarray:
    """The ZV control variates h_Q(theta) = -(1/2) Laplacian Q + grad Q . z, z = -(1/2) g, of linear or quadratic Q.

    Parameters
    ----------
    theta : array_like, shape (T, M, d)
        The states.
    grads : array_like, shape (T, M, d)
        The gradient estimates g of log posterior at them.
    degree : {1, 2}, default 1
        1: Q = theta_j, h_j = z_j (p = d; the paper's choice, eq. (11)); 2: also Q = theta_j^2 and theta_j theta_k
        (p = d + d(d+1)/2).
    operator : {"corrected", "printed"}, default "corrected"
        "printed": the paper's Laplacian Q + grad Q . z, whose mean is not zero for Q = theta_j^2 (an erratum; the
        same for degree 1).

    Returns
    -------
    numpy.ndarray, shape (T, M, p)

    Raises
    ------
    ParameterError
        When the arrays are not finite (T, M, d) of one shape, or degree or operator is unknown.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 5, Algorithm 2 and eqs. (10)-(11), with the sign of a and the
    operator corrected (:doc:`/papers/baker`, secs. 1.5 and 6); Mira, Solgi & Imparato (2013); Friel, Mira & Oates
    (2016) (unbiased with a noisy gradient).
    """
    if operator not in OPERATORS:
        raise ParameterError(f"operator must be one of {OPERATORS}, got {operator!r}")
    th = check_finite_array("theta", theta, ndim=(3,))
    g = check_finite_array("grads", grads, ndim=(3,))
    if g.shape != th.shape:
        raise ParameterError(f"grads must have the shape of theta {th.shape}, got {g.shape}")
    if degree not in (1, 2):
        raise ParameterError(f"degree must be 1 (linear Q) or 2 (quadratic Q), got {degree!r}")
    z = -0.5 * g
    if degree == 1:
        return z
    d = th.shape[2]
    cols = [z]
    for j in range(d):
        for k in range(j, d):
            if j == k:
                lap = -1.0 if operator == "corrected" else 2.0  # -(1/2) * 2 or the printed + 2
                cols.append((2.0 * th[..., j] * z[..., j] + lap)[..., None])
            else:
                cols.append((th[..., k] * z[..., j] + th[..., j] * z[..., k])[..., None])
    return np.concatenate(cols, axis=2)


def zv_coefficients(h: np.ndarray, f: np.ndarray, pooled: bool = False) -> np.ndarray:
    """The variance-minimising ZV coefficients a* = -Var(h)^{-1} Cov(h, f) (the corrected sign).

    Parameters
    ----------
    h : numpy.ndarray, shape (T, M, p)
        The control variates.
    f : numpy.ndarray, shape (T, M, k)
        The test functions' values.
    pooled : bool, default False
        False: per chain, from the chain itself (Algorithm 2); True: pooled over the chains.

    Returns
    -------
    numpy.ndarray, shape (M, p, k), or (1, p, k) pooled

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 5, Algorithm 2 and eqs. (10)-(11), with the sign of a and the
    operator corrected (:doc:`/papers/baker`, secs. 1.5 and 6); Mira, Solgi & Imparato (2013); Friel, Mira & Oates
    (2016) (unbiased with a noisy gradient).
    """
    hc = h - h.mean(axis=0)
    fc = f - f.mean(axis=0)
    if pooled:
        hc = hc.reshape(-1, 1, hc.shape[2])
        fc = fc.reshape(-1, 1, fc.shape[2])
    V = np.einsum("tmp,tmq->mpq", hc, hc)
    C = np.einsum("tmp,tmk->mpk", hc, fc)
    return -np.linalg.solve(V, C)


def zv_estimate(theta, grads, f=None, *, degree: int = 1, sign: str = "corrected", pooled: bool = False,
                coefficients: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """ZV-corrected values f + a^T h and their per-chain means (Algorithm 2, corrected).

    Parameters
    ----------
    theta : array_like, shape (T, M, d)
        The states, T >= 2.
    grads : array_like, shape (T, M, d)
        The gradient estimates of log posterior at them.
    f : array_like, shape (T, M, k), optional
        The test functions' values; None: f(theta) = theta.
    degree : {1, 2}, default 1
        The degree of Q (:func:`zv_controls`).
    sign : {"corrected", "printed"}, default "corrected"
        "printed": the paper's a = +Var^{-1} Cov (an erratum: it increases the variance).
    pooled : bool, default False
        Fit the coefficients pooled over chains instead of per chain.
    coefficients : numpy.ndarray, shape (M or 1, p, k), optional
        Use these instead of fitting (e.g. fitted on an independent sample).

    Returns
    -------
    values : numpy.ndarray, shape (T, M, k)
    means : numpy.ndarray, shape (M, k)

    Raises
    ------
    ParameterError
        When the arrays do not match, T < 2, or sign or degree is unknown.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 5, Algorithm 2 and eqs. (10)-(11), with the sign of a and the
    operator corrected (:doc:`/papers/baker`, secs. 1.5 and 6); Mira, Solgi & Imparato (2013); Friel, Mira & Oates
    (2016) (unbiased with a noisy gradient).
    """
    if sign not in SIGNS:
        raise ParameterError(f"sign must be one of {SIGNS}, got {sign!r}")
    th = check_finite_array("theta", theta, ndim=(3,))
    fv = th if f is None else check_finite_array("f", f, ndim=(3,))
    if fv.shape[:2] != th.shape[:2]:
        raise ParameterError(f"f must have shape (T, M, k) = ({th.shape[0]}, {th.shape[1]}, k), got {fv.shape}")
    if th.shape[0] < 2:
        raise ParameterError(f"theta must hold T >= 2 states per chain, got T = {th.shape[0]}")
    h = zv_controls(th, grads, degree)
    a = zv_coefficients(h, fv, pooled) if coefficients is None else np.asarray(coefficients, dtype=np.float64)
    if sign == "printed":
        a = -a
    out = fv + np.einsum("tmp,mpk->tmk", h, np.broadcast_to(a, (th.shape[1],) + a.shape[1:]))
    return out, out.mean(axis=0)


def zv_from_model(model, theta, f=None, *, estimator=None, rng: np.random.Generator | None = None, **kw):
    """ZV on a stored trace, with the model's exact gradients or fresh estimates of ``estimator``.

    Parameters
    ----------
    model : Model
        The model.
    theta : array_like, shape (T, M, d)
        The states.
    f : array_like, shape (T, M, k), optional
        The test functions' values; None: theta.
    estimator : GradientEstimator, optional
        None: exact gradients ``model.grad_log_post``; else fresh estimates from its ``estimate`` method (every
        workbench estimator has one), step t at state t.
    rng : numpy.random.Generator, optional
        The stream of the estimator's draws (required with an estimator).
    **kw
        The options of :func:`zv_estimate` (degree, sign, pooled, coefficients).

    Returns
    -------
    values : numpy.ndarray, shape (T, M, k)
    means : numpy.ndarray, shape (M, k)

    Raises
    ------
    ParameterError
        When an estimator is given without rng, or as :func:`zv_estimate`.
    """
    th = check_finite_array("theta", theta, ndim=(3,))
    if estimator is None:
        grads = np.stack([model.grad_log_post(t) for t in th])
    else:
        if rng is None:
            raise ParameterError("rng must be given with a noisy estimator")
        state = estimator.init(model, th.shape[1], rng)
        grads = np.empty_like(th)
        for t in range(th.shape[0]):
            grads[t], state = estimator.estimate(model, np.array(th[t]), state, rng, step=t)
    return zv_estimate(th, grads, f, **kw)





class RecordingEstimator(EstimatorBase):
    """An estimator that behaves exactly as ``inner`` (same draws, same estimates) and records its estimates.

    A copy of every gradient estimate it returns is appended to ``grads``, in order (for ZV post-processing of the
    gradients a sampler used).

    Parameters
    ----------
    inner : GradientEstimator
        The estimator to wrap.
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name
        self.grads: list[np.ndarray] = []

    def check(self, model) -> None:
        """The inner estimator's check.

        Parameters
        ----------
        model : Model
            The model.
        """
        self.inner.check(model)

    def init(self, model, n_chains: int, rng: np.random.Generator):
        """The inner estimator's initial state.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        rng : numpy.random.Generator
            The stream.

        Returns
        -------
        object
        """
        return self.inner.init(model, n_chains, rng)

    def draws_ahead(self, model) -> bool:
        """Whether the inner estimator's draws depend on the step number only.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
        """
        return self.inner.draws_ahead(model)

    def draw(self, model, n_chains: int, step: int, rng: np.random.Generator):
        """The inner estimator's draws of one step.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step.
        rng : numpy.random.Generator
            The stream.

        Returns
        -------
        object
        """
        return self.inner.draw(model, n_chains, step, rng)

    def apply(self, model, theta: np.ndarray, state, draws):
        """The inner estimator's estimate, a copy of which is appended to ``grads``.

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : object
            The inner estimator's state.
        draws : object
            This step's draws.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
        state : object
        """
        g, state = self.inner.apply(model, theta, state, draws)
        self.grads.append(g.copy())
        return g, state

    def noise_cov(self, model, theta: np.ndarray | None = None) -> np.ndarray:
        """The inner estimator's exact noise covariance.

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, optional
            The points.

        Returns
        -------
        numpy.ndarray
        """
        return self.inner.noise_cov(model, theta)

    def grads_per_step(self, model) -> float:
        """The inner estimator's per-datum gradient evaluations per chain-step.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
        """
        return self.inner.grads_per_step(model)


def run_with_gradients(sampler, n_chains: int, n_steps: int, *, seed: int = 0, theta0=None,
                       burn_in: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Run ``sampler`` and return its states and the gradient estimates it used at them, for ZV.

    One block (generator ``block_rng(seed, 0)``), one thread; states theta_k and estimates g(theta_k) for
    k = burn_in .. burn_in + n_steps - 1.

    Parameters
    ----------
    sampler : Sampler
        The sampler.
    n_chains : int
        M >= 2.
    n_steps : int
        T >= 2, the states returned.
    seed : int, default 0
        The run's seed.
    theta0 : array_like or callable, optional
        The start, as for :func:`simulate.run`.
    burn_in : int, default 0
        The first step returned.

    Returns
    -------
    theta : numpy.ndarray, shape (T, M, d)
    grads : numpy.ndarray, shape (T, M, d)

    Raises
    ------
    ParameterError
        When n_chains or n_steps is below 2 or burn_in is negative, or as :func:`simulate.run`.
    """
    from dataclasses import replace

    n_chains = check_int("n_chains", n_chains, 2)
    n_steps = check_int("n_steps", n_steps, 2)
    burn_in = check_int("burn_in", burn_in, 0)
    rec = RecordingEstimator(sampler.estimator)
    res = run(replace(sampler, estimator=rec), n_chains, n_steps + 1, seed=seed, theta0=theta0, burn_in=burn_in,
              trace_stride=1, block_size=n_chains, threads=1, test_functions=())
    return res.trace[burn_in:burn_in + n_steps], np.stack(rec.grads[burn_in:burn_in + n_steps])


__all__ = ["RecordingEstimator", "run_with_gradients", "zv_coefficients", "zv_controls", "zv_estimate", "zv_from_model"]
