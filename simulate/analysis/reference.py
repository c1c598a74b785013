"""Reference answers for a posterior without closed form (logistic regression), computed independently of SG-MCMC:

* :func:`posterior_moments_quadrature`: tensor Gauss-Hermite quadrature in the Laplace-whitened coordinates
  (d <= 3); its numerical error is estimated from the change between K and K + 8 nodes per axis (new).
* :func:`mala`: full-gradient Metropolis-adjusted Langevin (Roberts & Tweedie 1996), optionally preconditioned,
  vectorized over chains; per-chain time averages give a mean with a standard error across chains (new).
* :func:`laplace_cv_run`: a sampler's time averages with the control variate of a coupled linear chain around the
  Laplace approximation (new).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from ..estimators.estimated_cov import EstimatedCovMinibatch, estimated_covariance
from ..estimators.minibatch import Minibatch
from ..estimators.subsample import sample_indices
from ..models.logistic import LogisticRegressionModel
from ..runtime.blocks import DEFAULT_BLOCK_SIZE
from ..runtime.runner import run
from ..sampler import Sampler
from ..validation import ParameterError, check_finite_array, check_int, check_positive


# ---------------------------------------------------------------------- reference: quadrature
class QuadratureMoments(NamedTuple):
    """Posterior moments by quadrature and their numerical error (:func:`simulate.posterior_moments_quadrature`).

    Parameters
    ----------
    mean : numpy.ndarray, shape (d,)
        E[beta].
    second : numpy.ndarray, shape (d, d)
        E[beta beta^T].
    mean_error : float
        The largest change of the mean between K and K + 8 nodes per axis.
    second_error : float
        The same for the second moments.
    nodes : int
        The nodes per axis of the reported moments (K + 8).
    """

    mean: np.ndarray  # (d,)
    second: np.ndarray  # (d, d): E[beta beta^T]
    mean_error: float  # max |mean(K) - mean(K + 8)|
    second_error: float
    nodes: int


def _gh_moments(
    model: LogisticRegressionModel, mode: np.ndarray, L: np.ndarray, K: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Tensor Gauss-Hermite (K nodes per axis) posterior mean and second moments in coordinates beta = mode + L z."""
    z, w = np.polynomial.hermite_e.hermegauss(K)  # weight exp(-z^2/2)
    d = model.dim
    grids = np.meshgrid(*([z] * d), indexing="ij")
    Zp = np.stack([g.ravel() for g in grids], axis=1)  # (K^d, d)
    W = np.ones(Zp.shape[0])
    for g in np.meshgrid(*([w] * d), indexing="ij"):
        W = W * g.ravel()
    theta = mode + Zp @ L.T
    logr = np.empty(Zp.shape[0])
    chunk = max(1, 2_000_000 // model.n_data)
    for a in range(0, Zp.shape[0], chunk):
        logr[a:a + chunk] = model.log_post(theta[a:a + chunk])
    logr += 0.5 * np.einsum("kd,kd->k", Zp, Zp)
    r = W * np.exp(logr - logr.max())
    r /= r.sum()
    mean = r @ theta
    second = np.einsum("k,ki,kj->ij", r, theta, theta)
    return mean, second


def posterior_moments_quadrature(model: LogisticRegressionModel, order: int = 24) -> QuadratureMoments:
    """Posterior mean and second moments of a logistic regression by tensor Gauss-Hermite quadrature (new).

    With beta = mode + L z, L L^T = H(mode)^{-1} (Laplace), pi(beta) dz is proportional to
    ``exp(-|z|^2/2) r(z)``, ``r(z) = exp(log pi(mode + L z) + |z|^2/2)`` smooth and slowly varying, so
    E f(beta) = sum_k w_k r(z_k) f(mode + L z_k) / sum_k w_k r(z_k) converges fast in the number of nodes K.
    The reported error is the largest change against K + 8 nodes per axis. Cost K^d N; d <= 3 only.

    Parameters
    ----------
    model : LogisticRegressionModel
        The model, d <= 3.
    order : int, default 24
        K, nodes per axis, 4 <= K <= 200 (the moments reported use K + 8).

    Returns
    -------
    QuadratureMoments

    Raises
    ------
    ParameterError
        When d > 3 or order is out of range.
    RuntimeError
        When the mode search does not converge.
    """
    order = check_int("order", order, 4, 200)
    if model.dim > 3:
        raise ParameterError(f"posterior_moments_quadrature needs model.dim <= 3 (cost K^d N), got {model.dim}; "
                             "use mala() instead")
    mode, cov = model.laplace()
    L = np.linalg.cholesky(cov)
    m1, s1 = _gh_moments(model, mode, L, order)
    m2, s2 = _gh_moments(model, mode, L, order + 8)
    return QuadratureMoments(m2, s2, float(np.max(np.abs(m2 - m1))), float(np.max(np.abs(s2 - s1))), order + 8)


# ---------------------------------------------------------------------- reference: MALA
class MalaResult(NamedTuple):
    """What :func:`simulate.mala` returns.

    Parameters
    ----------
    time_averages : numpy.ndarray, shape (M, d)
        Per-chain time averages of beta over the kept steps.
    time_averages_sq : numpy.ndarray, shape (M, d)
        Per-chain time averages of beta_j^2.
    acceptance : float
        The overall acceptance rate over the kept steps.
    final : numpy.ndarray, shape (M, d)
        The chains' last states.
    """

    time_averages: np.ndarray  # (M, d): per-chain time average of beta over the kept steps
    time_averages_sq: np.ndarray  # (M, d): per-chain time average of beta_j^2
    acceptance: float  # overall acceptance rate (kept steps)
    final: np.ndarray  # (M, d)


def mala(
    log_post_and_grad: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
    theta0: np.ndarray,
    h: float,
    n_steps: int,
    rng: np.random.Generator,
    *,
    burn_in: int = 0,
    precond: np.ndarray | None = None,
) -> MalaResult:
    """Metropolis-adjusted Langevin on M chains at once, in the workbench's step convention.

    Proposal beta* = beta + (h/2) P grad log pi(beta) + sqrt(h) P^{1/2} xi (P = ``precond``, default I),
    accepted with probability min(1, pi(beta*) q(beta | beta*) / (pi(beta) q(beta* | beta))),
    q(b | a) = N(b; a + (h/2) P grad log pi(a), h P).

    Parameters
    ----------
    log_post_and_grad : callable
        ``f(theta (M, d)) -> (log pi (M,), grad log pi (M, d))``, up to a constant.
    theta0 : array_like, shape (M, d)
        The starting points.
    h : float
        The step size, > 0.
    n_steps : int
        L >= 1, the states averaged.
    rng : numpy.random.Generator
        The stream (advanced).
    burn_in : int, default 0
        b: time averages over the states b .. b + L - 1 (Vollmer et al. eq. (7)).
    precond : array_like, shape (d, d), optional
        The preconditioner P, symmetric positive definite (default I).

    Returns
    -------
    MalaResult

    Raises
    ------
    ParameterError
        For h, n_steps, burn_in, theta0 or precond out of range.

    References
    ----------
    Roberts & Tweedie (1996).
    """
    h = check_positive("h", h)
    n_steps = check_int("n_steps", n_steps, 1)
    burn_in = check_int("burn_in", burn_in, 0)
    theta = np.array(check_finite_array("theta0", theta0, ndim=(2,)), dtype=np.float64, copy=True)
    M, d = theta.shape
    if precond is None:
        P = np.eye(d)
    else:
        P = check_finite_array("precond", precond, ndim=(2,))
        if P.shape != (d, d):
            raise ParameterError(f"precond must have shape ({d}, {d}), got {P.shape}")
    try:
        R = np.linalg.cholesky(P)  # P = R R^T
    except np.linalg.LinAlgError:
        raise ParameterError("precond must be symmetric positive definite") from None
    Pinv = np.linalg.inv(P)
    lp, g = log_post_and_grad(theta)
    s1 = np.zeros((M, d))
    s2 = np.zeros((M, d))
    acc = 0
    for k in range(burn_in + n_steps):
        if k >= burn_in:
            s1 += theta
            s2 += theta * theta
        mean_fwd = theta + (0.5 * h) * (g @ P)
        prop = mean_fwd + np.sqrt(h) * (rng.standard_normal((M, d)) @ R.T)
        lp_p, g_p = log_post_and_grad(prop)
        mean_bwd = prop + (0.5 * h) * (g_p @ P)
        dfw = prop - mean_fwd
        dbw = theta - mean_bwd
        log_q_fwd = -0.5 / h * np.einsum("mi,ij,mj->m", dfw, Pinv, dfw)
        log_q_bwd = -0.5 / h * np.einsum("mi,ij,mj->m", dbw, Pinv, dbw)
        log_a = lp_p - lp + log_q_bwd - log_q_fwd
        accept = np.log(rng.random(M)) < log_a
        theta[accept] = prop[accept]
        lp[accept] = lp_p[accept]
        g[accept] = g_p[accept]
        if k >= burn_in:
            acc += int(accept.sum())
    return MalaResult(s1 / n_steps, s2 / n_steps, acc / (M * n_steps), theta)


def mala_reference(
    model: LogisticRegressionModel, n_chains: int, n_steps: int, seed: int, *, burn_in: int = 50, h: float = 1.0,
) -> MalaResult:
    """Laplace-preconditioned MALA on a logistic regression, chains started from the Laplace approximation (new).

    With P = H(mode)^{-1} (the Laplace covariance) the preconditioned target is close to N(0, I), so h = 1 gives
    acceptance about 0.84 and integrated autocorrelation times near 1-2 for the paper's d = 3 posterior.

    Parameters
    ----------
    model : LogisticRegressionModel
        The model.
    n_chains : int
        M >= 2.
    n_steps : int
        The states averaged per chain.
    seed : int
        The seed of the starts and the chains.
    burn_in : int, default 50
        Steps before the averaged states.
    h : float, default 1.0
        The step size.

    Returns
    -------
    MalaResult

    Raises
    ------
    ParameterError
        For an argument out of its range.
    RuntimeError
        When the mode search does not converge.
    """
    n_chains = check_int("n_chains", n_chains, 2)
    mode, cov = model.laplace()
    rng = np.random.default_rng(seed)
    theta0 = mode + rng.standard_normal((n_chains, model.dim)) @ np.linalg.cholesky(cov).T
    return mala(model.log_post_and_grad, theta0, h, n_steps, rng, burn_in=burn_in, precond=cov)


# ---------------------------------------------------------------------- control variate for time averages
class ControlVariateResult(NamedTuple):
    """What :func:`simulate.laplace_cv_run` returns.

    Parameters
    ----------
    plain : numpy.ndarray, shape (M, d)
        Per-chain time averages of theta (Vollmer et al. eq. (7)).
    cv : numpy.ndarray, shape (M, d)
        plain - linear + mode: the same expectation as plain, a far smaller variance.
    linear : numpy.ndarray, shape (M, d)
        Time averages of the coupled linear chain; their expectation is exactly ``mode``.
    mode : numpy.ndarray, shape (d,)
        The posterior mode.
    """

    plain: np.ndarray  # (M, d): per-chain time averages of theta (Vollmer et al. eq. 7)
    cv: np.ndarray  # (M, d): plain - linear + mode, same expectation as plain, far smaller variance
    linear: np.ndarray  # (M, d): time averages of the coupled linear chain; expectation exactly ``mode``
    mode: np.ndarray  # (d,)


def laplace_cv_run(
    sampler: Sampler, n_chains: int, n_steps: int, *, burn_in: int = 0, seed: int = 0,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> ControlVariateResult:
    """Per-chain time averages of theta with a coupled linear control variate (new).

    Each chain theta_k of ``sampler`` (started from the Laplace approximation N(mode, H^{-1}), H = -grad^2
    log pi(mode)) is paired with a linear chain driven by the same random numbers:

        l_{k+1} = mode + (I - (h/2) H)(l_k - mode) + (h/2) eps_k + N_k xi_k,   l_0 = theta_0,

    where xi_k and the minibatch tau_k are replayed from the sampler's generator (the sampler draws the
    minibatch first, then xi), eps_k = (N/n) sum_{j in tau_k} grad log p(x_j | theta_k) - sum_i grad log p(x_i |
    theta_k) is the minibatch noise at the sampler's own state, and N_k is the sampler's noise matrix (sqrt(h) I;
    mSGLD: sqrt(h)(I - (h/8) C), C = Cov(g) at the mode, or Covhat of the replayed minibatch for Remark 7).
    E[eps_k | past] = 0 and xi_k is fresh, so E l_k = mode for every k whatever the sampler does; hence
    cv = mean(theta) - mean(l) + mode has exactly the expectation of the plain time average, while the noise
    common to both chains cancels (for the d = 3 posterior of Section 7 the s.e. drops about 20-fold for SGLD).
    Validity does not depend on the coupling being exact (a sampler that draws differently is only less
    correlated with its linear chain). Blocks of chains use ``block_rng(seed, b)`` as :func:`simulate.run`.

    Parameters
    ----------
    sampler : Sampler
        A sampler on a :class:`simulate.LogisticRegressionModel`.
    n_chains : int
        M >= 2.
    n_steps : int
        L >= 1, the states averaged.
    burn_in : int, default 0
        b, the first state averaged (b + L >= 2).
    seed : int, default 0
        The run's seed.
    block_size : int, default DEFAULT_BLOCK_SIZE
        Chains per block.

    Returns
    -------
    ControlVariateResult

    Raises
    ------
    ParameterError
        When the model is not a logistic regression or an argument is out of its range.
    """
    model = sampler.model
    if not isinstance(model, LogisticRegressionModel):
        raise ParameterError(f"sampler.model must be a LogisticRegressionModel (it provides laplace()), got "
                             f"{type(model).__name__}")
    n_chains = check_int("n_chains", n_chains, 2)
    n_steps = check_int("n_steps", n_steps, 1)
    burn_in = check_int("burn_in", burn_in, 0)
    if burn_in + n_steps < 2:
        raise ParameterError("burn_in + n_steps must be >= 2 (at least one step)")
    block_size = check_int("block_size", block_size, 1)
    mode, cov = model.laplace()
    chol = np.linalg.cholesky(cov)
    coupling = _LinearCoupling(sampler, mode, cov, burn_in, n_steps)
    res = run(sampler, n_chains, n_steps, burn_in=burn_in, seed=seed, block_size=block_size, test_functions=("theta",),
              theta0=lambda rng, m: mode + rng.standard_normal((m, model.dim)) @ chol.T, hook=coupling.block)
    plain = res.time_averages["theta"]
    linear = np.concatenate(res.hooks)
    return ControlVariateResult(plain, plain - linear + mode, linear, mode)


class _LinearCoupling:
    """The linear chain of :func:`laplace_cv_run` as a step hook: before each step it saves the state and the
    generator's position, after it replays the step's minibatch and noise for l_{k+1}."""

    def __init__(self, sampler: Sampler, mode: np.ndarray, cov: np.ndarray, burn_in: int, n_steps: int) -> None:
        model, est, integ, h = sampler.model, sampler.estimator, sampler.integrator, sampler.h
        d = model.dim
        self.sampler, self.mode, self.burn_in, self.n_steps = sampler, mode, burn_in, n_steps
        self.A_T = (np.eye(d) - 0.5 * h * np.linalg.inv(cov)).T
        self.minibatch = isinstance(est, Minibatch) and est.n < model.n_data
        self.covhat = isinstance(est, EstimatedCovMinibatch) and self.minibatch
        if not integ.needs_noise_cov:
            self.fixed_noise = integ.noise_matrix(h, None) * np.eye(d)
        elif self.covhat:
            self.fixed_noise = None
        else:
            c = np.asarray(est.noise_cov(model, mode[None, :]), dtype=np.float64)
            self.fixed_noise = integ.noise_matrix(h, c.reshape(-1, d, d)[0])

    def block(self, start: int, stop: int) -> _LinearCoupling.Block:
        return _LinearCoupling.Block(self)

    class Block:
        """One block's linear chain and its running sum over the averaging window."""

        def __init__(self, spec: _LinearCoupling) -> None:
            self.spec = spec
            self.lin: np.ndarray | None = None
            self.total: np.ndarray | None = None
            self.replay = np.random.Generator(np.random.PCG64())

        def before(self, k: int, state, rng: np.random.Generator) -> None:
            sp = self.spec
            if self.lin is None:
                self.lin = state.theta.copy()  # l_0 = theta_0
                self.total = np.zeros_like(self.lin)
            if sp.burn_in <= k < sp.burn_in + sp.n_steps:
                self.total += self.lin
            self.th_old = state.theta.copy()
            self.replay.bit_generator.state = rng.bit_generator.state

        def after(self, k: int, state) -> None:
            sp, s = self.spec, self.spec.sampler
            model, est, integ, h = s.model, s.estimator, s.integrator, s.h
            N, m = model.n_data, self.lin.shape[0]
            lin = (self.lin - sp.mode) @ sp.A_T + sp.mode
            noise = sp.fixed_noise
            if sp.minibatch:
                idx = sample_indices(self.replay, N, est.n, m, est.replace)
                if sp.covhat:
                    per = model.grad_log_lik(self.th_old, idx)
                    part = per.sum(axis=0)
                    noise = integ.noise_matrix(h, est.cov_multiplier * estimated_covariance(per, N, est.replace))
                else:
                    part = model.grad_log_lik_sum(self.th_old, idx)
                part *= N / est.n
                part -= model.grad_log_lik_full(self.th_old)
                part *= 0.5 * h
                lin += part
            xi = self.replay.standard_normal((m, model.dim))
            lin += xi @ noise.T if noise.ndim == 2 else np.einsum("mij,mj->mi", noise, xi)
            self.lin = lin

        def result(self) -> np.ndarray:
            self.total += self.lin  # l at the window's last state (the run's last): no step is taken from it
            return self.total / self.spec.n_steps


__all__ = ["ControlVariateResult", "MalaResult", "QuadratureMoments", "laplace_cv_run", "mala", "mala_reference",
           "posterior_moments_quadrature"]
