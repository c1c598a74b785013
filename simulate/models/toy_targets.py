"""The four toy targets of Baker, Fearnhead, Fox & Nemeth, "Control variates for SG-MCMC", Sec. 3.

Each is a :class:`simulate.models.Model` (per-datum log-likelihood gradients, prior gradient, data simulated from a
seed) and also exposes the log density, which the MALA reference sampler and the divide-and-conquer subposterior
samplers (:mod:`simulate.analysis.divide_conquer`) need:

* :class:`BivariateTLocation` (Sec. 3.1): x_i ~ t_nu(theta, Sigma) in R^2, flat prior.
* :class:`GaussianMixtureLocation` (Sec. 3.2): x_i ~ (1/2) N(theta_1, Sigma) + (1/2) N(theta_2, Sigma) in R^2,
  theta = (theta_1, theta_2) in R^4, theta_k ~ N(0, sigma0^2 I); the allocation is summed out.
* :class:`WarpedGaussian` (Sec. 3.3): x_i ~ N(theta_1 + theta_2^2, sigma_x^2), theta_k ~ N(0, sigma_theta^2).
* :class:`GaussianLocation` (Sec. 3.4): x_i ~ N(theta, Sigma) in R^d, flat prior (optionally N(0, sigma0^2 I)).

The paper omits the scales; the workbench chooses (and the defaults of ``simulate_data`` are):
t: Sigma = [[1, 0.5], [0.5, 1]], nu = 3, theta_true = (0, 0), N = 800; mixture: Sigma = I_2, theta_true =
((0, 0), (2, 2)), sigma0 = 10 ("large"), N = 10^4; warped: sigma_x = 2, sigma_theta = 1 (both standard
deviations; the paper's N(., sigma) is read as a scale), theta_true = (0, 1), N = 800; Gaussian: Sigma_ij =
0.5^|i-j|, theta_true = 0, N = 800.

**Flat priors.** An improper flat prior has log density 0 and gradient 0 (``grad_log_prior`` returns zeros and
``prior_is_flat`` is True); the posterior is proper for N >= 1 in both flat-prior toys (the t and Gaussian
likelihoods are integrable in theta). Raising a flat prior to the power 1/S (subposteriors) leaves it flat.

Shapes: the elementwise kernels take theta of shape (..., d) and data of shape (..., dx), broadcast, and return
per-datum log densities (...) and gradients (..., d).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._fast import kernels
from ..affine import AffineParts
from ..validation import ParameterError, check_finite_array, check_int, check_positive
from .base import Model

#: Data per chunk when a full-data sum is evaluated (bounds memory at about chunk * M * d floats).
FULL_DATA_CHUNK = 2048


def _check_cov(name: str, S, dim: int) -> np.ndarray:
    S = check_finite_array(name, S, ndim=(2,))
    if S.shape != (dim, dim):
        raise ParameterError(f"{name} must have shape ({dim}, {dim}), got {S.shape}")
    if not np.allclose(S, S.T, rtol=1e-12, atol=1e-12):
        raise ParameterError(f"{name} must be symmetric")
    try:
        np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        raise ParameterError(f"{name} must be positive definite") from None
    return S


@dataclass
class ToyModel(Model):
    """Common machinery: data (N, dx); subclasses define ``terms`` (per-datum log lik and gradient) and
    ``prior_terms`` (log prior and gradient, up to constants)."""

    data: np.ndarray
    prior_is_flat: bool = field(init=False, default=False)

    def _set_data(self, data, dx: int) -> None:
        x = check_finite_array("data", data, ndim=(1, 2))
        if x.ndim == 1:
            x = x[:, None]
        if x.shape[1] != dx:
            raise ParameterError(f"data must have shape (N, {dx}), got {x.shape}")
        self.data = np.ascontiguousarray(x)
        self.n_data = x.shape[0]

    # --- to be defined by subclasses
    def terms(self, theta: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def prior_terms(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    # --- Model interface
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        return self.prior_terms(theta)[1]

    def grad_log_lik(self, theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
        return self.terms(theta[None, :, :], self.data.take(idx, axis=0))[1]

    def grad_log_lik_full(self, theta: np.ndarray) -> np.ndarray:
        return self.block_log_post_and_grad(theta[None], self.data[None], prior_power=0.0)[1][0]

    # --- log densities
    def block_log_post_and_grad(self, theta: np.ndarray, xb: np.ndarray, prior_power: float = 1.0,
                                weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Tempered-prior log posterior of B data blocks at once: theta (B, M, d), xb (B, m, dx).

        log pi_b(theta) = prior_power * log p(theta) + sum_j w_bj log p(x_bj | theta) (up to a constant), with
        weights (B, m) in {0, 1} marking padding (None: all 1). Returns ((B, M), (B, M, d)).
        """
        B, M, d = theta.shape
        lp, g = self.prior_terms(theta)
        lp = lp * prior_power
        g = g * prior_power
        m = xb.shape[1]
        for a in range(0, m, FULL_DATA_CHUNK):
            xc = xb[:, a:a + FULL_DATA_CHUNK]
            l_i, g_i = self.terms(theta[:, None, :, :], xc[:, :, None, :])  # (B, c, M), (B, c, M, d)
            if weights is not None:
                w = weights[:, a:a + FULL_DATA_CHUNK, None]
                l_i = l_i * w
                g_i = g_i * w[..., None]
            lp = lp + l_i.sum(axis=1)
            g = g + g_i.sum(axis=1)
        return lp, g

    def log_post_and_grad(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Full log posterior (up to a constant) and its gradient at theta (M, d): ((M,), (M, d))."""
        lp, g = self.block_log_post_and_grad(theta[None], self.data[None])
        return lp[0], g[0]

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """A rough (Laplace / Fisher) posterior covariance for n_data data, used only to precondition MALA."""
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------- Sec. 3.1
@dataclass
class BivariateTLocation(ToyModel):
    """x_i ~ multivariate t_nu(theta, Sigma) in R^2, flat prior on theta (Baker et al. Sec. 3.1).

    log p(x | theta) = -((nu + p)/2) log(1 + q/nu), q = (x - theta)^T Sigma^{-1} (x - theta), p = 2;
    grad_theta = (nu + p)/(nu + q) Sigma^{-1} (x - theta).
    """

    Sigma: np.ndarray = field(default_factory=lambda: np.array([[1.0, 0.5], [0.5, 1.0]]))
    nu: float = 3.0

    def __post_init__(self) -> None:
        self._set_data(self.data, 2)
        self.dim = 2
        self.Sigma = _check_cov("Sigma", self.Sigma, 2)
        self.nu = check_positive("nu", self.nu)
        self.P = np.linalg.inv(self.Sigma)
        self.prior_is_flat = True
        # |Hessian of one term| <= (nu + p)/nu lambda_max(P)
        self.grad_lipschitz = self.n_data * (self.nu + 2) / self.nu * float(np.linalg.eigvalsh(self.P)[-1])

    @classmethod
    def simulate_data(cls, n_data: int = 800, theta_true=(0.0, 0.0), Sigma=None, nu: float = 3.0,
                      seed: int = 0) -> BivariateTLocation:
        n_data = check_int("n_data", n_data, 1)
        nu = check_positive("nu", nu)
        Sigma = _check_cov("Sigma", np.array([[1.0, 0.5], [0.5, 1.0]]) if Sigma is None else Sigma, 2)
        rng = np.random.default_rng(seed)
        z = rng.standard_normal((n_data, 2)) @ np.linalg.cholesky(Sigma).T
        w = rng.chisquare(nu, size=n_data) / nu
        x = check_finite_array("theta_true", theta_true, ndim=(0, 1)) + z / np.sqrt(w)[:, None]
        return cls(x, Sigma=Sigma, nu=nu)

    def terms(self, theta, x):
        r = x - theta
        Pr = r @ self.P
        q = np.einsum("...i,...i->...", r, Pr)
        lp = -0.5 * (self.nu + 2.0) * np.log1p(q / self.nu)
        g = ((self.nu + 2.0) / (self.nu + q))[..., None] * Pr
        return lp, g

    def prior_terms(self, theta):
        return np.zeros(theta.shape[:-1]), np.zeros_like(theta)

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """Inverse Fisher information of the t location: Sigma (nu + p + 2)/((nu + p) n)."""
        return self.Sigma * (self.nu + 4.0) / ((self.nu + 2.0) * n_data)

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Overdispersed starts: N(median of the block, 4 x approx_cov)."""
        c = np.linalg.cholesky(4.0 * self.approx_cov(xb.shape[0]))
        return np.median(xb, axis=0) + rng.standard_normal(shape + (2,)) @ c.T


# ---------------------------------------------------------------------------------------------- Sec. 3.2
@dataclass
class GaussianMixtureLocation(ToyModel):
    """x_i ~ (1/2) N(theta_1, Sigma) + (1/2) N(theta_2, Sigma) in R^2, theta = (theta_1, theta_2) in R^4,
    independent priors theta_k ~ N(0, sigma0^2 I) (Baker et al. Sec. 3.2; allocation summed out).

    With r_k(x) = N(x | theta_k, Sigma)/sum_j N(x | theta_j, Sigma): grad_{theta_k} log p(x | theta) =
    r_k Sigma^{-1} (x - theta_k). The posterior is symmetric under the label swap theta_1 <-> theta_2.
    """

    Sigma: np.ndarray = field(default_factory=lambda: np.eye(2))
    sigma0: float = 10.0

    def __post_init__(self) -> None:
        self._set_data(self.data, 2)
        self.dim = 4
        self.Sigma = _check_cov("Sigma", self.Sigma, 2)
        self.sigma0 = check_positive("sigma0", self.sigma0)
        self.P = np.linalg.inv(self.Sigma)
        self.grad_lipschitz = None

    @classmethod
    def simulate_data(cls, n_data: int = 10_000, theta_true=((0.0, 0.0), (2.0, 2.0)), Sigma=None,
                      sigma0: float = 10.0, seed: int = 0) -> GaussianMixtureLocation:
        n_data = check_int("n_data", n_data, 1)
        Sigma = _check_cov("Sigma", np.eye(2) if Sigma is None else Sigma, 2)
        mu = check_finite_array("theta_true", theta_true, ndim=(2,))
        if mu.shape != (2, 2):
            raise ParameterError(f"theta_true must have shape (2, 2), got {mu.shape}")
        rng = np.random.default_rng(seed)
        z = rng.integers(0, 2, size=n_data)
        x = mu[z] + rng.standard_normal((n_data, 2)) @ np.linalg.cholesky(Sigma).T
        return cls(x, Sigma=Sigma, sigma0=sigma0)

    def terms(self, theta, x):
        t1, t2 = theta[..., :2], theta[..., 2:]
        r1, r2 = x - t1, x - t2
        P1, P2 = r1 @ self.P, r2 @ self.P
        q1 = np.einsum("...i,...i->...", r1, P1)
        q2 = np.einsum("...i,...i->...", r2, P2)
        mx = np.minimum(q1, q2)
        e1, e2 = np.exp(-0.5 * (q1 - mx)), np.exp(-0.5 * (q2 - mx))
        s = e1 + e2
        lp = -0.5 * mx + np.log(0.5 * s)
        w1, w2 = (e1 / s)[..., None], (e2 / s)[..., None]
        return lp, np.concatenate([w1 * P1, w2 * P2], axis=-1)

    def prior_terms(self, theta):
        s2 = self.sigma0 ** 2
        return -0.5 * np.einsum("...i,...i->...", theta, theta) / s2, -theta / s2

    def block_log_post_and_grad(self, theta, xb, prior_power=1.0, weights=None):
        """Same as :meth:`ToyModel.block_log_post_and_grad`, with the quadratic forms expanded into matrix
        products: q_k(x) = x^T P x - 2 x^T P theta_k + theta_k^T P theta_k and
        sum_i r_ik P (x_i - theta_k) = P (sum_i r_ik x_i - (sum_i r_ik) theta_k)."""
        lp, g = self.prior_terms(theta)
        lp, g = lp * prior_power, g * prior_power
        xP = xb @ self.P  # (B, m, 2)
        xPx = np.einsum("bmi,bmi->bm", xP, xb)[..., None]  # (B, m, 1)
        t1, t2 = theta[..., :2], theta[..., 2:]
        q1 = xPx - 2 * xP @ t1.transpose(0, 2, 1) + np.einsum("bki,ij,bkj->bk", t1, self.P, t1)[:, None, :]
        q2 = xPx - 2 * xP @ t2.transpose(0, 2, 1) + np.einsum("bki,ij,bkj->bk", t2, self.P, t2)[:, None, :]
        # log(N1 + N2)/2 = -min(q)/2 + log(1 + exp(-|q1 - q2|/2)) - log 2; r_1 = 1/(1 + exp((q1 - q2)/2))
        dq = 0.5 * (q1 - q2)
        e = np.exp(-np.abs(dq))
        l_i = np.log1p(e) - np.log(2.0) - 0.5 * np.minimum(q1, q2)  # (B, m, M)
        w_small = e / (1.0 + e)  # responsibility of the farther component
        far1 = dq > 0
        w1 = np.where(far1, w_small, 1.0 - w_small)
        w2 = 1.0 - w1
        if weights is not None:
            l_i = l_i * weights[..., None]
            w1, w2 = w1 * weights[..., None], w2 * weights[..., None]
        lp = lp + l_i.sum(axis=1)
        wx1 = w1.transpose(0, 2, 1) @ xb  # (B, M, 2)
        wx2 = w2.transpose(0, 2, 1) @ xb
        g1 = (wx1 - w1.sum(axis=1)[..., None] * t1) @ self.P
        g2 = (wx2 - w2.sum(axis=1)[..., None] * t2) @ self.P
        return lp, g + np.concatenate([g1, g2], axis=-1)

    def cluster_means(self) -> np.ndarray:
        """The two cluster means of the data by k-means (scikit-learn), ordered by their coordinate sum: (2, 2).
        Used only to start the reference chains in the label modes."""
        from sklearn.cluster import KMeans

        c = KMeans(2, n_init=5, random_state=0).fit(self.data).cluster_centers_
        return c[np.argsort(c.sum(1))]

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        """About half the data inform each mean: block-diag(2 Sigma/n, 2 Sigma/n)."""
        c = 2.0 * self.Sigma / max(n_data, 1)
        out = np.zeros((4, 4))
        out[:2, :2] = c
        out[2:, 2:] = c
        return out

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Label-symmetric overdispersed starts: theta_1, theta_2 iid N(mean of the block, Cov of the block)."""
        c = np.linalg.cholesky(np.cov(xb.T))
        z = rng.standard_normal(shape + (4,))
        return np.concatenate([xb.mean(0) + z[..., :2] @ c.T, xb.mean(0) + z[..., 2:] @ c.T], axis=-1)

    @staticmethod
    def swap_labels(theta: np.ndarray) -> np.ndarray:
        """theta_1 <-> theta_2 (the posterior is invariant under this map)."""
        return np.concatenate([theta[..., 2:], theta[..., :2]], axis=-1)


# ---------------------------------------------------------------------------------------------- Sec. 3.3
@dataclass
class WarpedGaussian(ToyModel):
    """x_i ~ N(theta_1 + theta_2^2, sigma_x^2), theta_k ~ N(0, sigma_theta^2) (Baker et al. Sec. 3.3).

    grad log p(x | theta) = ((x - theta_1 - theta_2^2)/sigma_x^2) (1, 2 theta_2). The tempered posterior
    pi(theta) propto p(theta)^lam prod_{i in B} p(x_i | theta) is sampled exactly (new): given theta_2, theta_1 is
    Gaussian with precision a = n/sigma_x^2 + lam/sigma_theta^2 and mean (n/sigma_x^2)(xbar - theta_2^2)/a, and
    theta_2 has the 1-D marginal log pi(theta_2) = -lam theta_2^2/(2 sigma_theta^2)
    - (xbar - theta_2^2)^2 / (2 (sigma_theta^2/lam + sigma_x^2/n)), drawn by inverse CDF on a fine grid.
    """

    sigma_x: float = 2.0
    sigma_theta: float = 1.0

    def __post_init__(self) -> None:
        self._set_data(self.data, 1)
        self.dim = 2
        self.sigma_x = check_positive("sigma_x", self.sigma_x)
        self.sigma_theta = check_positive("sigma_theta", self.sigma_theta)
        self.grad_lipschitz = None

    @classmethod
    def simulate_data(cls, n_data: int = 800, theta_true=(0.0, 1.0), sigma_x: float = 2.0,
                      sigma_theta: float = 1.0, seed: int = 0) -> WarpedGaussian:
        n_data = check_int("n_data", n_data, 1)
        sigma_x = check_positive("sigma_x", sigma_x)
        t = check_finite_array("theta_true", theta_true, ndim=(1,))
        if t.shape != (2,):
            raise ParameterError(f"theta_true must have shape (2,), got {t.shape}")
        rng = np.random.default_rng(seed)
        return cls(t[0] + t[1] ** 2 + sigma_x * rng.standard_normal((n_data, 1)), sigma_x=sigma_x,
                   sigma_theta=sigma_theta)

    def terms(self, theta, x):
        r = x[..., 0] - theta[..., 0] - theta[..., 1] ** 2
        s2 = self.sigma_x ** 2
        lp = -0.5 * r * r / s2
        g = np.stack(np.broadcast_arrays(r / s2, 2.0 * theta[..., 1] * r / s2), axis=-1)
        return lp, g

    def prior_terms(self, theta):
        s2 = self.sigma_theta ** 2
        return -0.5 * np.einsum("...i,...i->...", theta, theta) / s2, -theta / s2

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        return np.diag([self.sigma_x ** 2 / max(n_data, 1), self.sigma_theta ** 2 / max(prior_power, 1e-12)])

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Starts drawn from the prior N(0, sigma_theta^2 I)."""
        return self.sigma_theta * rng.standard_normal(shape + (2,))

    def theta2_log_marginal(self, t2: np.ndarray, xbar: float, n: int, prior_power: float = 1.0) -> np.ndarray:
        """log pi(theta_2) of the tempered block posterior, up to a constant (formula in the class docstring)."""
        lam = prior_power
        s_th2, s_x2 = self.sigma_theta ** 2, self.sigma_x ** 2
        if lam > 0:
            v = s_th2 / lam + s_x2 / n
            return -0.5 * lam * t2 ** 2 / s_th2 - 0.5 * (xbar - t2 ** 2) ** 2 / v
        # no prior: theta_1 flat, the theta_2 marginal is flat too (improper)
        raise ParameterError("prior_power must be > 0 for the warped Gaussian (its marginal is otherwise improper)")

    def exact_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xbar: float, n: int,
                    prior_power: float = 1.0, grid: int = 20001) -> np.ndarray:
        """Exact draws (shape + (2,)) from the tempered posterior of a block with n data of mean xbar."""
        lam = check_positive("prior_power", prior_power)
        n = check_int("n", n, 1)
        half = self.sigma_theta / np.sqrt(lam) * 8.0 + np.sqrt(abs(xbar)) + 1.0
        t = np.linspace(-half, half, grid)
        lp = self.theta2_log_marginal(t, xbar, n, lam)
        p = np.exp(lp - lp.max())
        cdf = np.concatenate([[0.0], np.cumsum(0.5 * (p[1:] + p[:-1]) * np.diff(t))])
        cdf /= cdf[-1]
        u = rng.random(shape)
        t2 = np.interp(u, cdf, t)
        a = n / self.sigma_x ** 2 + lam / self.sigma_theta ** 2
        m1 = (n / self.sigma_x ** 2) * (xbar - t2 ** 2) / a
        t1 = m1 + rng.standard_normal(shape) / np.sqrt(a)
        return np.stack([t1, t2], axis=-1)

    def posterior_moment_theta2_sq(self, xbar: float | None = None, n: int | None = None,
                                   prior_power: float = 1.0) -> float:
        """E[theta_2^2] under the (tempered block) posterior by quadrature of the 1-D marginal (new)."""
        from scipy.integrate import quad

        xbar = float(self.data.mean()) if xbar is None else xbar
        n = self.n_data if n is None else n
        grid = np.linspace(-10, 10, 4001)
        ref = self.theta2_log_marginal(grid, xbar, n, prior_power).max()
        f = lambda t, k: t ** k * np.exp(self.theta2_log_marginal(t, xbar, n, prior_power) - ref)  # noqa: E731
        z = quad(f, -np.inf, np.inf, args=(0,), epsabs=0, epsrel=1e-12, limit=500)[0]
        m2 = quad(f, -np.inf, np.inf, args=(2,), epsabs=0, epsrel=1e-12, limit=500)[0]
        return m2 / z


# ---------------------------------------------------------------------------------------------- Sec. 3.4
@dataclass
class GaussianLocation(ToyModel):
    """x_i ~ N(theta, Sigma) in R^d with Sigma known; flat prior (Baker et al. Sec. 3.4) or, when ``sigma0`` is
    given, theta ~ N(0, sigma0^2 I).

    The tempered posterior of n data with sum s and prior power lam is Gaussian (new, standard conjugacy):
    precision Q = n Sigma^{-1} + (lam/sigma0^2) I, mean Q^{-1} Sigma^{-1} s.
    """

    Sigma: np.ndarray | None = None
    sigma0: float | None = None

    def __post_init__(self) -> None:
        x = check_finite_array("data", self.data, ndim=(2,))
        d = x.shape[1]
        self._set_data(x, d)
        self.dim = d
        self.Sigma = _check_cov("Sigma", np.eye(d) if self.Sigma is None else self.Sigma, d)
        self.P = np.linalg.inv(self.Sigma)
        self.prior_is_flat = self.sigma0 is None
        if self.sigma0 is not None:
            self.sigma0 = check_positive("sigma0", self.sigma0)
        prior_prec = 0.0 if self.sigma0 is None else 1.0 / self.sigma0 ** 2
        self.grad_lipschitz = self.n_data * float(np.linalg.eigvalsh(self.P)[-1]) + prior_prec
        self._sum = x.sum(axis=0)

    grad_cov_is_constant = True

    @staticmethod
    def ar1_cov(dim: int, rho: float = 0.5) -> np.ndarray:
        """Sigma_ij = rho^|i-j| (the workbench's choice for Sec. 3.4)."""
        dim = check_int("dim", dim, 1)
        i = np.arange(dim)
        return rho ** np.abs(i[:, None] - i[None, :])

    @classmethod
    def simulate_data(cls, n_data: int = 800, dim: int = 2, theta_true=None, Sigma=None, sigma0=None,
                      seed: int = 0) -> GaussianLocation:
        n_data = check_int("n_data", n_data, 1)
        dim = check_int("dim", dim, 1)
        Sigma = _check_cov("Sigma", cls.ar1_cov(dim) if Sigma is None else Sigma, dim)
        mu = np.zeros(dim) if theta_true is None else np.broadcast_to(np.asarray(theta_true, float), (dim,))
        rng = np.random.default_rng(seed)
        x = mu + rng.standard_normal((n_data, dim)) @ np.linalg.cholesky(Sigma).T
        return cls(x, Sigma=Sigma, sigma0=sigma0)

    def terms(self, theta, x):
        r = x - theta
        Pr = r @ self.P
        return -0.5 * np.einsum("...i,...i->...", r, Pr), Pr

    def prior_terms(self, theta):
        if self.sigma0 is None:
            return np.zeros(theta.shape[:-1]), np.zeros_like(theta)
        s2 = self.sigma0 ** 2
        return -0.5 * np.einsum("...i,...i->...", theta, theta) / s2, -theta / s2

    def grad_log_lik_sum(self, theta, idx):
        xs = kernels.take_sum_rows(self.data, idx)  # the bits of data.take(idx, axis=0).sum(axis=0)
        return (xs - idx.shape[0] * theta) @ self.P

    def grad_log_lik_full(self, theta):
        return (self._sum - self.n_data * theta) @ self.P

    def per_datum_grad_cov(self, theta=None) -> np.ndarray:
        """Sigma^{-1} Cov_emp(x) Sigma^{-1} (divisor N), independent of theta."""
        xc = self.data - self.data.mean(axis=0)
        return self.P @ (xc.T @ xc / self.n_data) @ self.P

    def affine_parts(self) -> AffineParts:
        """P_0 = I/sigma0^2 (zeros for the flat prior), r_0 = 0; P_i = Sigma^{-1} (common), r_i = Sigma^{-1} x_i."""
        prior = np.zeros((self.dim, self.dim)) if self.sigma0 is None else np.eye(self.dim) / self.sigma0 ** 2
        return AffineParts.with_common(prior, np.zeros(self.dim), self.P, self.data @ self.P)

    def tempered_posterior(self, n: int, xsum: np.ndarray, prior_power: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """(mean, covariance) of p(theta)^lam prod_{i in B} p(x_i | theta) for a block of n data with sum xsum."""
        prec = n * self.P
        if self.sigma0 is not None:
            prec = prec + (prior_power / self.sigma0 ** 2) * np.eye(self.dim)
        cov = np.linalg.inv(prec)
        cov = 0.5 * (cov + cov.T)
        return cov @ (self.P @ xsum), cov

    def posterior(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact posterior (mean, covariance)."""
        return self.tempered_posterior(self.n_data, self._sum, 1.0)

    def approx_cov(self, n_data: int, prior_power: float = 1.0) -> np.ndarray:
        return self.Sigma / max(n_data, 1)

    def init_draws(self, rng: np.random.Generator, shape: tuple[int, ...], xb: np.ndarray) -> np.ndarray:
        """Overdispersed starts: N(block mean, 4 Sigma/n)."""
        c = np.linalg.cholesky(4.0 * self.approx_cov(xb.shape[0]))
        return xb.mean(0) + rng.standard_normal(shape + (self.dim,)) @ c.T
