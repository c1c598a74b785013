"""The exact laws the atlas compares bounds with: for one chain (problem, sampler, h, minibatch n, start), the mean
and covariance of theta_K (of (x_K, v_K) for underdamped chains) at every K of the atlas's grid, of the stationary
law, and of the averaged law (1/K) sum_{k=1}^K nu_k, all from the exact engine (:func:`theory.exact_law`).

Which laws are Gaussian (so that mean and covariance are the whole law): the full-gradient samplers (ULA,
underdamped Langevin MCMC) from a Gaussian start on a Gaussian target (every step is affine with Gaussian noise).
The stochastic-gradient samplers (SGLD, SGLD-CV, SVRG-LD, SAGA-LD, CV-ULD) have a non-Gaussian law (a mixture over
the minibatch draws): only its first two moments are exact, so the W2 they give is Gelbrich's lower bound
(:func:`theory.distances.gelbrich_w2`) and the KL the maximum-entropy lower bound; on the 1-D additive models the
law itself is available (:mod:`theory.atlas.exact`).

Routes: ``direct`` runs the engine on the whole model (moments by the engine's powers of the period maps where its
state is small, else one pass of its recursions over K); ``separable`` (problems whose coordinates close on
themselves, :attr:`theory.atlas.problems.AtlasProblem.separable`, p > 1) runs the engine on each coordinate's
projected model (:meth:`theory.linear_gaussian.ExactLaw.projected`) and assembles the diagonal covariance: exact,
because the coordinates' chains are independent in their first two moments (diagonal precisions, diagonal start,
data whose empirical cross-covariances vanish, so the minibatch noise is uncorrelated across coordinates; checked).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simulate.affine import AffineParts
from simulate.validation import ParameterError
from theory.linear_gaussian import exact_law, solve

from .exact import mixture_kls_1d
from .problems import EIGENBASIS, AtlasProblem, problem
from .samplers import GAUSSIAN_SAMPLERS, UNDERDAMPED, build_sampler

#: The iteration counts of the atlas.
K_GRID = (1, 3, 10, 30, 100, 300, 1000, 3000, 10_000)


@dataclass(frozen=True, eq=False)
class ChainLaws:
    """Exact moments of one chain (module docstring).

    Parameters
    ----------
    at : dict
        ``{K: (mean, cov)}`` of theta_K (of (x_K, v_K) when ``joint``) for every K of :data:`K_GRID`.
    start : tuple
        (mean, cov) of the start.
    average : dict
        ``{K: (mean, cov, the components' mean KL, the exact KL in 1-D or None)}`` of the averaged law (empty unless
        asked for).
    gaussian : bool
        Whether the law is Gaussian.
    target : tuple
        (mean, cov) of pi (of pi x N(0, u I) when ``joint``).
    joint : bool
        Whether the moments are those of (x, v) of an underdamped chain.
    route : str
        "direct" or "separable" (module docstring).
    whole : dict
        ``{K: (mean, cov)}`` of the engine's whole state (SVRG-LD on the direct route; else empty).
    blocks : tuple of numpy.ndarray or None
        Index blocks the law and the target factor over (the joint law on the separable route).
    h : float
        The step size.
    start_name : str
        The start, one of :data:`theory.bounds.literature.base.STARTS`.
    """

    at: dict
    start: tuple
    average: dict
    gaussian: bool
    target: tuple
    joint: bool
    route: str
    whole: dict
    blocks: tuple | None = None
    h: float = 0.0
    start_name: str = ""



def _period_second_matrix(kernel) -> np.ndarray:
    """W, (n^2, n^2): the homogeneous second-moment map over one period from phase 0 as an explicit matrix acting
    on row-major vec(C), built by applying the engine's map (:func:`theory.linear_gaussian.solve.period_second`) to
    the n^2 unit matrices at once."""
    n = kernel.layout.n
    units = np.eye(n * n, dtype=kernel.layout.dtype).reshape(n * n, n, n)
    return solve.period_second(kernel, units).reshape(n * n, n * n).T

def start_law(prob: AtlasProblem, start: str) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) of theta_0 for one of the atlas's starts.

    Parameters
    ----------
    prob : AtlasProblem
        The test problem.
    start : str
        "warm" N(x*, I/M), "offset" N(x* + Delta, I/M) or "point" x* + Delta.

    Returns
    -------
    tuple of numpy.ndarray
        The start's mean and covariance (0 for a point).
    """
    p = prob.p
    if start == "warm":
        return prob.mean.copy(), np.eye(p) / prob.M
    if start == "offset":
        return prob.mean + prob.offset, np.eye(p) / prob.M
    if start == "point":
        return prob.mean + prob.offset, np.zeros((p, p))
    raise ParameterError(f"start must be 'warm', 'offset' or 'point', got {start!r}")


def _coordinate_parts(src: AffineParts, j: int) -> AffineParts:
    return AffineParts.with_common(src.prior_precision[j:j + 1, j:j + 1], src.prior_shift[j:j + 1],
                                   src.common[j:j + 1, j:j + 1], src.shifts[:, j:j + 1])


def _uncorrelated_shifts(shifts: np.ndarray) -> bool:
    """True when the data shifts' empirical cross-covariances vanish (to rounding); cached on the array's bytes."""
    key = shifts.tobytes()
    if key not in _SHIFTS_OK:
        R = shifts - shifts.mean(axis=0)
        G = R.T @ R
        _SHIFTS_OK[key] = bool(np.allclose(G, np.diag(np.diag(G)), rtol=0.0, atol=1e-10 * np.abs(G).max()))
    return _SHIFTS_OK[key]


_SHIFTS_OK: dict[bytes, bool] = {}


def _check_separable(law, sampler_name: str) -> None:
    src = law.source
    diag = lambda A: np.all(A == np.diag(np.diag(A)))  # noqa: E731
    ok = src.form == "common" and diag(src.prior_precision) and diag(src.common) and diag(law.cov0)
    if ok and sampler_name not in GAUSSIAN_SAMPLERS:
        ok = _uncorrelated_shifts(src.shifts)
    if not ok:
        raise ParameterError(f"the separable route needs diagonal precisions, a diagonal start and uncorrelated data "
                             f"shifts; this {sampler_name} chain has not")


def _eigen_path(law, ks, joint: bool) -> dict | None:
    """{K: (mean, cov)} from the engine's explicit one-step maps (period 1, same step 0): the mean map Phi (n, n)
    and the second-moment map W (n^2, n^2) of the augmented state, S_K = W^K S_0 through one eigendecomposition of
    W, m_K = Phi^K m_0; None where the engine has no explicit maps for this chain."""
    K = law.kernel
    if not law.explicit or K.period != 1 or K.first is not None:
        return None
    Phi, W = solve.period_first(K), _period_second_matrix(K)
    m0, S0 = K.initial(law.theta0, law.cov0, first_ok=True)
    lam, V = np.linalg.eig(W)
    coef = np.linalg.solve(V, S0.reshape(-1).astype(complex))
    n, D, out = S0.shape[0], K.layout.D, {}
    for k in sorted(set(ks)):
        with np.errstate(over="ignore", invalid="ignore"):  # an unstable chain's moments overflow: inf, reported
            S = (V @ (lam**k * coef)).real.reshape(n, n)
            m = np.linalg.matrix_power(Phi, k) @ m0
        C = S[:D, :D] - np.outer(m[:D], m[:D])
        out[k] = (m[:D], 0.5 * (C + C.T))
    return out


def _moments_at(law, ks, joint: bool):
    """{K: (mean, cov)} for K in ks: from the engine's explicit maps where it has them (:func:`_eigen_path`), else
    one pass of its recursions up to max(ks)."""
    ks = sorted(set(ks))
    path = _eigen_path(law, ks, joint)
    if path is not None:
        return path
    out, want = {}, set(ks)
    with np.errstate(over="ignore", invalid="ignore"):  # an unstable chain's moments overflow: inf, reported
        for k, m, C in law.trajectory(max(ks), whole_state=True):
            if k in want:
                out[k] = (m, C)
    return out


def _select_state(m, C, d: int, joint: bool):
    """theta (and v for underdamped chains) out of the engine's whole state (estimator blocks dropped)."""
    n = 2 * d if joint else d
    return m[:n], C[:n, :n]


#: Coordinate laws of the separable route, shared by every problem and chain with the same coordinate (the Gaussian
#: targets with p = 10 and p = 100 share their ten precisions).
_COORDINATES: dict[tuple, dict] = {}


def _estimator_key(sampler) -> tuple:
    est = sampler.estimator
    return (type(est).__name__, getattr(est, "n", None), getattr(est, "replace", None),
            type(sampler.integrator).__name__)


def _coordinate_key(src: AffineParts, theta0, cov0, j: int) -> tuple:
    """What a coordinate's first two moments depend on: its precisions, prior shift, start, and the first two
    moments of its data shifts (the minibatch noise enters the moments through them only), to 12 digits."""
    r = src.shifts[:, j]
    ss = float(((r - r.mean()) ** 2).sum())
    mean = round(float(r.sum()) / max(np.sqrt(ss * r.size), 1e-300), 9) + 0.0  # the data mean in units of its spread
    vals = (src.prior_precision[j, j], src.prior_shift[j], src.common[j, j], ss, theta0[j], cov0[j, j])
    return (mean,) + tuple(float(f"{float(v):.10g}") for v in vals)


def _separable(law, sampler_name: str, joint: bool, ks) -> dict:
    """The separable route (module docstring): {K: (mean, cov)} for K in ks (ks = ("stationary",): the stationary
    law); coordinates with equal keys (:func:`_coordinate_key`) are computed once."""
    _check_separable(law, sampler_name)
    d, w = law.d, 2 if joint else 1
    means = {k: np.zeros(w * d) for k in ks}
    covs = {k: np.zeros((w * d, w * d)) for k in ks}
    done = _COORDINATES
    for j in range(d):
        key = (sampler_name, law.h, _estimator_key(law.sampler), joint, tuple(ks),
               _coordinate_key(law.source, law.theta0, law.cov0, j))
        if key not in done:
            sub = law.projected(np.eye(d)[j:j + 1], _coordinate_parts(law.source, j))
            done[key] = {k: _select_state(m, C, 1, joint) for k, (m, C) in _laws_of(sub, ks, joint).items()}
        idx = [j, d + j] if joint else [j]
        for k, (mk, Ck) in done[key].items():
            means[k][idx], covs[k][np.ix_(idx, idx)] = mk, Ck
    return {k: (means[k], covs[k]) for k in ks}


def _laws_of(law, ks, joint: bool) -> dict:
    """{K: (mean, cov)} of the whole state for K in ks, or {"stationary": ...} (phase 0 when periodic)."""
    if ks == ("stationary",):
        return {"stationary": law.stationary_moments(phase=0 if law.period > 1 else None, whole_state=True)}
    return _moments_at(law, ks, joint)


def _all_moments(law, k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """Means (k_max + 1, d) and covariances (k_max + 1, d, d) of theta for every k <= k_max: from the engine's
    explicit maps at once (:func:`_eigen_path`'s route, vectorised over k), else one pass of its recursions."""
    K = law.kernel
    d = law.d
    if law.explicit and K.period == 1 and K.first is None:
        Phi, W = solve.period_first(K), _period_second_matrix(K)
        m, S0 = K.initial(law.theta0, law.cov0, first_ok=True)
        lam, V = np.linalg.eig(W)
        coef = np.linalg.solve(V, S0.reshape(-1).astype(complex))
        n = S0.shape[0]
        idx = (np.arange(d)[:, None] * n + np.arange(d)[None, :]).reshape(-1)
        with np.errstate(over="ignore", invalid="ignore"):
            powers = lam[None, :] ** np.arange(k_max + 1)[:, None]
            S = ((powers * coef) @ V[idx].T).real.reshape(k_max + 1, d, d)
        means = np.empty((k_max + 1, d))
        for k in range(k_max + 1):
            means[k] = m[:d]
            m = Phi @ m
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            rows = [(mk, Ck) for _, mk, Ck in law.trajectory(k_max)]
        means = np.array([r[0] for r in rows])
        S = np.array([r[1] + np.outer(r[0], r[0]) for r in rows])
    covs = S - np.einsum("ki,kj->kij", means, means)
    return means, 0.5 * (covs + np.swapaxes(covs, 1, 2))


def _average(law, ks, target) -> dict:
    """The averaged law (1/K) sum_{k=1}^K nu_k at every K of ks: mixture mean and covariance, the mean of the
    components' KL to the target (:func:`_kl_batch`) and, in 1-D, its exact KL by quadrature."""
    means, covs = _all_moments(law, max(ks))
    means, covs = means[1:], covs[1:]
    second = covs + np.einsum("ki,kj->kij", means, means)
    s1, s2 = np.cumsum(means, axis=0), np.cumsum(second, axis=0)
    kls = np.cumsum(_kl_batch(means, covs, *target))
    exact = (mixture_kls_1d(np.stack([means[:, 0], covs[:, 0, 0]], axis=1), ks, float(target[0][0]),
                            float(target[1][0, 0])) if law.d == 1 else {})
    out = {}
    for k in ks:
        mean = s1[k - 1] / k
        out[k] = (mean, s2[k - 1] / k - np.outer(mean, mean), kls[k - 1] / k, exact.get(k))
    return out


def _kl_batch(ms: np.ndarray, Cs: np.ndarray, mu: np.ndarray, S: np.ndarray) -> np.ndarray:
    """KL(N(m_i, C_i) || N(mu, S)) for a batch (trace / log-determinant form: the upper bracket of a mixture's KL
    by convexity does not need the cancellation-free form of :func:`theory.distances.kl_gaussian`)."""
    Si = np.linalg.inv(S)
    d = ms - mu
    tr = np.einsum("ij,kji->k", Si, Cs)
    quad = np.einsum("ki,ij,kj->k", d, Si, d)
    return 0.5 * (tr - mu.size + quad + np.linalg.slogdet(S)[1] - np.linalg.slogdet(Cs)[1])


def _joint_target_and_start(prob, sampler, h, m0, C0):
    d, u = prob.p, sampler.integrator.u
    Z = np.zeros((d, d))
    target = (np.concatenate([prob.mean, np.zeros(d)]), np.block([[prob.cov, Z], [Z, u * np.eye(d)]]))
    v0 = sampler.integrator.initial_var(h)
    return target, (np.concatenate([m0, np.zeros(d)]), np.block([[C0, Z], [Z, v0 * np.eye(d)]]))


def _law(problem_name: str, sampler_name: str, h: float, n: int | None, start: str):
    prob = problem(problem_name)
    sampler = build_sampler(prob, sampler_name, h, n)
    m0, C0 = start_law(prob, start)
    return prob, sampler, exact_law(sampler, theta0=m0, cov0=C0), (m0, C0)


def _route(prob) -> str:
    return "separable" if prob.separable and prob.p > 1 else "direct"


@lru_cache(maxsize=4096)
def chain_laws(problem_name: str, sampler_name: str, h: float, n: int | None, start: str, joint: bool = False,
               average: bool = False) -> ChainLaws:
    """The exact laws of one chain (module docstring) at every K of :data:`K_GRID`; cached.

    Full-gradient chains on a problem that is not separable are computed in its eigenbasis
    (:meth:`theory.atlas.problems.AtlasProblem.eigenbasis`; the means and covariances are then those of the rotated
    coordinates, and so is the target).

    Parameters
    ----------
    problem_name : str
        The atlas problem (:data:`theory.atlas.problems.PROBLEMS`, or one with the suffix "@eigenbasis").
    sampler_name : str
        The atlas sampler (:data:`theory.bounds.literature.base.BOUND_SAMPLERS`).
    h : float
        The step size.
    n : int or None
        The minibatch size (None for full gradients).
    start : str
        The start, one of :data:`theory.bounds.literature.base.STARTS`.
    joint : bool
        For an underdamped chain, the joint law of (x, v) rather than that of x.
    average : bool
        Also the averaged law (1/K) sum_{k=1}^K nu_k (first-order chains).

    Returns
    -------
    ChainLaws
        The chain's exact moments.

    Raises
    ------
    ParameterError
        When the averaged law is asked for an underdamped chain, or the engine refuses the chain.
    """
    if sampler_name in GAUSSIAN_SAMPLERS and not problem(problem_name).separable and not average:
        return chain_laws(problem_name + EIGENBASIS, sampler_name, h, n, start, joint, average)
    prob, sampler, law, (m0, C0) = _law(problem_name, sampler_name, h, n, start)
    underdamped = sampler_name in UNDERDAMPED
    joint = joint and underdamped
    d = prob.p
    target, start_mc = (prob.mean, prob.cov), (m0, C0)
    if joint:
        target, start_mc = _joint_target_and_start(prob, sampler, h, m0, C0)
    route = "direct" if average else _route(prob)
    whole = {}
    if route == "separable":
        at = _separable(law, sampler_name, joint, K_GRID)
    else:
        raw = _moments_at(law, K_GRID, joint)
        at = {k: _select_state(m, C, d, joint) for k, (m, C) in raw.items()}
        whole = raw if sampler_name == "svrgld" else {}
    avg = {}
    if average:
        if underdamped:
            raise ParameterError(f"the averaged law is computed for first-order chains, not {sampler_name}")
        avg = _average(law, K_GRID, (prob.mean, prob.cov))
    blocks = tuple(np.array([j, d + j]) for j in range(d)) if joint and route == "separable" else None
    # control variates on a common per-datum precision have no noise at all: the chain is the full-gradient one
    gaussian = sampler_name in GAUSSIAN_SAMPLERS or (sampler_name in ("sgld_cv", "svrgld", "cv_uld")
                                                     and prob.model.affine_parts().form == "common")
    return ChainLaws(at, start_mc, avg, gaussian, target, joint, route, whole, blocks, h, start)


@lru_cache(maxsize=4096)
def stationary_law(problem_name: str, sampler_name: str, h: float, n: int | None, joint: bool = False) -> tuple:
    """(mean, cov) of the stationary law of theta; cached.

    Of (x, v) when ``joint``; phase 0 for periodic chains; in the eigenbasis where :func:`chain_laws` computes there.

    Parameters
    ----------
    problem_name : str
        The atlas problem (:data:`theory.atlas.problems.PROBLEMS`, or one with the suffix "@eigenbasis").
    sampler_name : str
        The atlas sampler (:data:`theory.bounds.literature.base.BOUND_SAMPLERS`).
    h : float
        The step size.
    n : int or None
        The minibatch size (None for full gradients).
    joint : bool
        For an underdamped chain, the joint law of (x, v).

    Returns
    -------
    tuple of numpy.ndarray
        The stationary mean and covariance.
    """
    if sampler_name in GAUSSIAN_SAMPLERS and not problem(problem_name).separable:
        return stationary_law(problem_name + EIGENBASIS, sampler_name, h, n, joint)
    prob, sampler, law, _ = _law(problem_name, sampler_name, h, n, "warm")
    joint = joint and sampler_name in UNDERDAMPED
    if _route(prob) == "separable":
        return _separable(law, sampler_name, joint, ("stationary",))["stationary"]
    return _select_state(*_laws_of(law, ("stationary",), joint)["stationary"], prob.p, joint)


def functional_path(problem_name: str, sampler_name: str, h: float, n: int | None, start: str,
                    F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every k <= max(K_GRID): the mean of the first D = F.shape[0] state coordinates and <F, E x x^T>.

    <F, E x x^T> is the raw second moment of those coordinates against the symmetric F, on the direct route. From the
    engine's explicit maps it is one linear functional of W^k S_0, so its whole path costs one eigendecomposition of
    the second-moment map W; else one pass of the engine's recursions.

    Parameters
    ----------
    problem_name : str
        The atlas problem (:data:`theory.atlas.problems.PROBLEMS`, or one with the suffix "@eigenbasis").
    sampler_name : str
        The atlas sampler (:data:`theory.bounds.literature.base.BOUND_SAMPLERS`).
    h : float
        The step size.
    n : int or None
        The minibatch size (None for full gradients).
    start : str
        The start, one of :data:`theory.bounds.literature.base.STARTS`.
    F : numpy.ndarray
        A symmetric (D, D) matrix.

    Returns
    -------
    means : numpy.ndarray
        (max(K_GRID) + 1, D), the means of the first D coordinates at every k.
    values : numpy.ndarray
        (max(K_GRID) + 1,), <F, E x_k x_k^T> at every k (inf once an unstable chain's moments overflow).
    """
    _, _, law, _ = _law(problem_name, sampler_name, h, n, start)
    K, k_max, D = law.kernel, K_GRID[-1], F.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):  # an unstable chain's moments overflow: inf, reported
        if law.explicit and K.period == 1 and K.first is None:
            Phi, W = solve.period_first(K), _period_second_matrix(K)
            m, S0 = K.initial(law.theta0, law.cov0, first_ok=True)
            lam, V = np.linalg.eig(W)
            coef = np.linalg.solve(V, S0.reshape(-1).astype(complex))
            nn = S0.shape[0]
            idx = (np.arange(D)[:, None] * nn + np.arange(D)[None, :]).reshape(-1)
            w = F.reshape(-1) @ V[idx]
            values = ((lam[None, :] ** np.arange(k_max + 1)[:, None]) @ (w * coef)).real
            means = np.empty((k_max + 1, D))
            for k in range(k_max + 1):
                means[k] = m[:D]
                m = Phi @ m
            return means, values
        rows = [(mk[:D], float(np.sum(F * (Ck[:D, :D] + np.outer(mk[:D], mk[:D])))))
                for _, mk, Ck in law.trajectory(k_max, whole_state=True)]
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def clear_atlas_caches() -> None:
    """Forget every exact law computed so far (chains, stationary laws, coordinates): after a change of the code
    they come from, e.g. a planted bug."""
    chain_laws.cache_clear()
    stationary_law.cache_clear()
    _COORDINATES.clear()


__all__ = ["K_GRID", "ChainLaws", "chain_laws", "clear_atlas_caches", "functional_path", "start_law", "stationary_law"]
