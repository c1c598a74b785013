"""Baker, Fearnhead, Fox & Nemeth, Sec. 3.2 (Fig. 2): divide-and-conquer and SGLD on the bimodal mixture, against
the exact posterior.

The model is the mixture with scalar data (:class:`simulate.models.scalar_mixture.ScalarMixtureLocation`, the
workbench's reduction of the paper's bivariate mixture): its posterior is 2-D, so the references are exact. The
posterior is invariant under the label swap theta_1 <-> theta_2, so pi = (pi_< + swap pi_<) / 2 with pi_< the
posterior restricted to theta_1 < theta_2 (one label mode). pi_< is computed by the grid cubature of
:mod:`theory.grid` (the region and frame of :func:`theory.grid.region.posterior_frame`, the masses of
:func:`theory.grid.region.posterior_masses`) on two grids; the label modes a = E_<[theta], b = swap(a), the
posterior mass between them, and i.i.d. reference draws for the k-NN KL (a node drawn by its mass, then uniform in
its cell, then the label swap with probability 1/2) come from it. The paper's 4-D mixture has no such reference: its
posterior does not factor, and the grid is limited to two dimensions (docs/papers/baker.md).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulate.analysis import divide_conquer
from simulate.analysis.kl import knn_kl_replicates
from simulate.models.scalar_mixture import ScalarMixtureLocation
from simulate.samplers import sgld
from theory.grid.grid import Grid
from theory.grid.region import posterior_frame, posterior_masses
from verify.api import Check, ClaimResult, Settings, claim, mean_and_se, simulation_cache

from .toys import KL_K, PAPER, S_SUB, ordering

#: Nodes per axis of the coarse and the fine grid of the reference cubature (pi_<, about unit scale per z unit).
GRID_NODES = (48, 64)
#: i.i.d. reference draws for the k-NN KL.
REF_DRAWS = 2000
#: N, the number of data (the paper: 10^4; fewer to fit the time budget).
MIX_N = 2000


class _OneLabelMode:
    """The posterior restricted to theta_1 < theta_2 (log density -inf elsewhere), for the grid's region finder."""

    dim = 2

    def __init__(self, model: ScalarMixtureLocation) -> None:
        self.model = model

    def log_post(self, theta: np.ndarray) -> np.ndarray:
        th = np.asarray(theta, float).reshape(-1, 2)
        out = np.full(th.shape[0], -np.inf)
        inside = th[:, 0] < th[:, 1]
        out[inside] = self.model.log_post(th[inside])
        return out

    def grad_log_post(self, theta: np.ndarray) -> np.ndarray:
        return self.model.grad_log_post(theta)

    def posterior_mode(self) -> np.ndarray:
        from scipy import optimize

        res = optimize.minimize(lambda t: -float(self.model.log_post(t[None])[0]), self.model.cluster_means().ravel(),
                                jac=lambda t: -self.model.grad_log_post(t[None])[0], method="BFGS")
        return np.sort(res.x)


class MixtureReference(NamedTuple):
    """The exact references of the mixture claim (module docstring).

    Parameters
    ----------
    a, b : numpy.ndarray, shape (2,)
        The label modes' means E_<[theta] and its swap.
    between : float
        The posterior mass with t in (0.1, 0.9) on the segment a -> b.
    error : float
        The cubature's error: the largest change of a and of ``between`` from the coarse to the fine grid, plus the
        mass within one z unit of the box's edge and the mass within two cells of the diagonal theta_1 = theta_2
        (where the restriction to one label mode cuts).
    jitter_var : float
        The variance (z units^2, per axis) that drawing uniformly in a cell adds to the reference draws.
    draws : numpy.ndarray, shape (REF_DRAWS, 2)
        i.i.d. reference draws from the fine grid's law, both label modes.
    """

    a: np.ndarray
    b: np.ndarray
    between: float
    error: float
    jitter_var: float
    draws: np.ndarray


def segment_position(th: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Position of theta along the segment a -> b (0 at a, 1 at b)."""
    ab = b - a
    return (th - a) @ ab / (ab @ ab)


def between_modes(t: np.ndarray) -> np.ndarray:
    """Per replicate (last axis: draws), the fraction of draws strictly between the modes (t in (0.1, 0.9))."""
    return ((t > 0.1) & (t < 0.9)).mean(axis=-1)


def mixture_reference(model: ScalarMixtureLocation, seed: int) -> MixtureReference:
    """a, b, the mass between the modes and i.i.d. reference draws from the grid cubature of pi_< (module
    docstring).

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Sec. 3.2 (the mixture); the reference by cubature is new.
    """
    half_model = _OneLabelMode(model)
    frame = posterior_frame(half_model)
    out = []
    for n in GRID_NODES:
        grid = Grid(frame.centre, frame.frame, frame.half, (n, n))
        w = posterior_masses(half_model.log_post(grid.points))
        a = w @ grid.points
        b = model.swap_labels(a)
        between = float(w @ between_modes(segment_position(grid.points, a, b)[:, None]))
        out.append((grid, w, a, b, between))
    (_, _, a0, _, bt0), (grid, w, a, b, between) = out
    # the restriction's jump at theta_1 = theta_2 is harmless only where pi has no mass near it: count that mass
    reach = 2.0 * float(np.abs(np.asarray(grid.frame) * grid.spacing).sum(axis=1).max())
    near_diagonal = float(w[grid.points[:, 1] - grid.points[:, 0] < reach].sum())
    error = max(float(np.abs(a - a0).max()), abs(between - bt0)) + grid.edge_mass(w) + near_diagonal
    rng = np.random.default_rng(seed)
    z = grid.z[rng.choice(w.size, size=REF_DRAWS, p=w)] + grid.spacing * (rng.random((REF_DRAWS, 2)) - 0.5)
    draws = grid.centre + z @ np.asarray(grid.frame).T
    swap = rng.random(REF_DRAWS) < 0.5
    draws[swap] = model.swap_labels(draws[swap])
    return MixtureReference(a, b, between, error, float(np.max(grid.spacing) ** 2 / 12), draws)


@simulation_cache
def mixture_sim(seed: int) -> dict:
    """Consensus, KDEMC, Weierstrass and SGLD draws on the bimodal mixture (10 replicates), the exact reference, and
    the k-NN KL of consensus and SGLD against it."""
    model = ScalarMixtureLocation.simulate_data(MIX_N, seed=35)
    rng = np.random.default_rng(seed)
    R, M, C = 10, 200, 4
    draws = divide_conquer.subposterior_draws(model, S_SUB, R, M, rng, chains_per_rep=1, n_burn=150, thin=2)
    cons = divide_conquer.consensus(draws)
    kde = divide_conquer.kdemc(draws, rng, M)
    wei = divide_conquer.weierstrass(draws, rng, accept=0.1)
    ref = mixture_reference(model, seed + 1)
    h = 0.2 / (model.n_data / 2)
    sg = divide_conquer.sg_draws(sgld(model, h, 50), R, C, M // C, n_burn=300, thin=5, seed=seed + 2)
    return dict(model=model, cons=cons, sg=sg, ref=ref, kde=kde, wei=wei,
                kl_cons=knn_kl_replicates(cons, ref.draws, KL_K), kl_sg=knn_kl_replicates(sg, ref.draws, KL_K), C=C)


def sgld_mode_indicator(sim: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per SGLD chain (final state): 1 if theta sits in the label mode near a, else 0."""
    sg = sim["sg"]
    R, MM, _ = sg.shape
    C = sim["C"]
    last = sg.reshape(R, C, MM // C, 2)[:, :, -1].reshape(-1, 2)
    return (np.linalg.norm(last - a, axis=1) < np.linalg.norm(last - b, axis=1)).astype(float)


def mixture_checks(sim: dict) -> list:
    """Consensus, KDEMC and Weierstrass put their mass between the modes; SGLD finds both; KL ordering."""
    a, b = sim["ref"].a, sim["ref"].b
    out = [ordering("consensus: fraction of draws between the label modes (t in (0.1, 0.9) on the segment a -> b) "
                    "> 1/2", between_modes(segment_position(sim["cons"], a, b)), 0.5, "greater")]
    for name, lab in (("kde", "KDEMC"), ("wei", "Weierstrass")):
        out.append(ordering(f"{lab} not bimodal either: fraction of draws between the modes > 1/2",
                            between_modes(segment_position(sim[name], a, b)), 0.5, "greater"))
    in_a = sgld_mode_indicator(sim, a, b)
    fm, fse = mean_and_se(in_a)
    out.append(Check("SGLD: fraction of chains in the label mode near a (label symmetry: 1/2)", 0.5, fm, fse,
                     {"chains": in_a.size}))
    out.append(ordering("KL(consensus) - KL(SGLD) > 0 (paired over replicates)", sim["kl_cons"] - sim["kl_sg"], 0.0,
                        "greater"))
    return out


def mixture_notes(sim: dict) -> list[str]:
    ref = sim["ref"]
    t_cons = segment_position(sim["cons"], ref.a, ref.b)
    return [f"exact posterior (grid cubature of one label mode, {GRID_NODES[1]}^2 vs {GRID_NODES[0]}^2 nodes, error "
            f"{ref.error:.1e}): modes a = {ref.a.round(3)}, b = {ref.b.round(3)}, mass between the modes "
            f"{ref.between:.2e}; consensus per-replicate sd of t {t_cons.std(axis=1).mean():.3f} (one tight cluster)",
            f"k-NN KL against {REF_DRAWS} i.i.d. draws of the fine grid's law (uniform within a cell: variance "
            f"+{ref.jitter_var:.1e} per axis in units where pi has about unit scale, a KL change of about "
            f"2 * eps^2 / 4 = {ref.jitter_var ** 2 / 2:.0e}, against the KL difference's s.e. "
            f"{(sim['kl_cons'] - sim['kl_sg']).std(ddof=1) / np.sqrt(sim['kl_sg'].size):.2f})",
            f"scalar-data mixture (2-D posterior; the paper's data are bivariate), N = {MIX_N} (paper 10^4), S = "
            f"{S_SUB}, subposteriors by one MALA chain each (as in the paper) from label-symmetric starts; SGLD "
            "pooled over 4 chains per replicate"]


@claim("baker.sec3.mixture_consensus_between_modes", paper=PAPER, source="Baker et al. Sec. 3.2, Fig. 2",
       statement="On the bimodal Gaussian mixture consensus puts its mass between the posterior modes (KDEMC and "
                 "Weierstrass do not capture the bimodality either), while SGLD chains find both (label) modes and "
                 "SGLD has smaller KL than consensus.",
       family="baker_toys")
def mixture(settings: Settings) -> ClaimResult:
    sim = mixture_sim(settings.seed_for("baker.sec3.mixture"))
    return ClaimResult(notes=mixture_notes(sim)).add(*mixture_checks(sim))
