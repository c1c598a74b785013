"""Fu & Zhang statements a referee can read two ways (issue 20), each judged under its readings.

* Assumption 3.1 ("the gradient of the log-likelihood is L-Lipschitz in x"): x the features that k-means clusters
  (reading A: labels may mix inside a cluster) or x the whole datum (features, label), as p(x | theta) suggests
  (reading B).
* "CP reduces the variance" (the Remark after Theorem 3.4): the variance E||dV_l||^2 itself can rise above uniform
  sampling's (an erratum, with two counter-examples); the surrogate bound that Theorem 3.2 minimises never does
  (fu_zhang.thm32.surrogate_never_above_uniform, in surrogate.py).

Exact checks evaluate the closed forms of theory.noise.stratified and theory.bounds.fu_zhang on the data; which of
them are identities is said in their labels.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from simulate.estimators.allocation import allocate, continuous_allocation, round_allocation
from simulate.estimators.strata import kmeans_strata
from simulate.models.datasets import breast_cancer_design
from theory.bounds.fu_zhang import thm31_bound
from theory.noise.stratified import cluster_sq_dev, logistic_grads, stratified_variance, uniform_variance
from verify.api import ClaimResult, ExactCheck, Reading, Settings, claim

from ._common import KMEANS_ITER, KMEANS_SEED, PAPER

#: The mixed-label cluster: three copies of x = (1, 1) with labels (+1, -1, +1), and two copies of (-2, 1) labelled +1.
MIXED_X = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, 1.0], [-2.0, 1.0], [-2.0, 1.0]])
MIXED_Y = np.array([1.0, -1.0, 1.0, 1.0, 1.0])
MIXED_LABELS, MIXED_B, MIXED_THETA = np.array([0, 0, 0, 1, 1]), (2, 1), np.array([0.3, -0.2])


def pairwise_lipschitz(points: np.ndarray, grads: np.ndarray) -> float:
    """max over data pairs of ||g_i - g_j|| / ||p_i - p_j|| (pairs at distance 0 with different g give inf)."""
    dp = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    dg = np.linalg.norm(grads[:, None, :] - grads[None, :, :], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(dp > 0, dg / dp, np.where(dg > 0, np.inf, 0.0))
    return float(r.max())


# ------------------------------------------------------------------------------------------ Assumption 3.1
def features_reading_checks() -> list[ExactCheck]:
    """Reading A: x = features; the mixed-label cluster has zero data spread but a gradient spread, for every L (the
    reading's counter-example: ``expect="fail"``)."""
    out = []
    g = logistic_grads(MIXED_X, MIXED_Y, MIXED_THETA)
    lhs = stratified_variance(g, MIXED_LABELS, MIXED_B, replace=True)
    v0 = stratified_variance(g[:3], MIXED_LABELS[:3], MIXED_B[:1], True)
    for L in (1.0, 10.0, 1e3):
        rhs = thm31_bound(MIXED_X, MIXED_LABELS, MIXED_B, L)
        rhs0 = thm31_bound(MIXED_X[:3], MIXED_LABELS[:3], MIXED_B[:1], L)
        out.append(ExactCheck(
            f"x = features, L = {L:g}: Lemma 3.4 variance <= Theorem 3.1 bound (cluster 0 = three copies of x = (1, 1) "
            "with labels +1, -1, +1)", lhs <= rhs,
            f"variance {lhs:.4g}; bound {rhs:.4g} (cluster 0 contributes {rhs0:.3g} to the bound but {v0:.4g} to the "
            "variance)", part="A", expect="fail"))
    return out


def mixed_cluster_datum_check() -> ExactCheck:
    """Reading B on the mixed-label cluster: with x = (features, label) the pairwise L is finite and bounds it."""
    xt = np.column_stack([MIXED_X, MIXED_Y])
    g = logistic_grads(MIXED_X, MIXED_Y, MIXED_THETA)
    L = pairwise_lipschitz(xt, g)
    lhs = stratified_variance(g, MIXED_LABELS, MIXED_B, replace=True)
    rhs = thm31_bound(xt, MIXED_LABELS, MIXED_B, L)
    return ExactCheck(
        "x = (features, label): the pairwise Lipschitz constant on the data is finite and Theorem 3.1's bound holds "
        "with it (the same mixed-label cluster)", np.isfinite(L) and lhs <= rhs,
        f"L = {L:.4g}; Lemma 3.4 variance {lhs:.4g} <= bound {rhs:.4g}", kind="identity", part="B")


#: The fixed rays theta = s u of the breast-cancer check: u from these seeds (an exact check does not depend on the
#: run's seed; a seed-dependent ray made it fail at one run seed in two of the calibration, issue 28 item 6).
DATUM_RAYS = (0, 1, 2, 3, 4)
#: The ray's scales s; L(s u) has converged to its limit s -> inf when the last two agree to this relative tolerance.
DATUM_SCALES, DATUM_SATURATION_RTOL = (0.0, 1.0, 10.0, 100.0, 1e3, 1e4), 0.01


def breast_cancer_datum_check() -> ExactCheck:
    """Reading B on breast cancer: the bound holds with the data's pairwise L(theta) along fixed rays, and L(theta)
    converges along each (the per-datum gradients tend to 0 or y x), so one L serves every theta on the data."""
    Xb, yb = breast_cancer_design()
    xt = np.column_stack([Xb[:, :-1], yb])
    strata = kmeans_strata(xt, 6, max_iter=KMEANS_ITER, seed=KMEANS_SEED)
    bi = allocate(strata, 30, "neyman")
    rows, ok, saturated = [], True, True
    for ray in DATUM_RAYS:
        u = np.random.default_rng(ray).standard_normal(Xb.shape[1])
        u /= np.linalg.norm(u)
        Ls = []
        for scale in DATUM_SCALES:
            gb = logistic_grads(Xb, yb, scale * u)
            Ls.append(pairwise_lipschitz(xt, gb))
            ok &= stratified_variance(gb, strata.labels, bi, replace=True) <= thm31_bound(xt, strata.labels, bi,
                                                                                          Ls[-1])
        saturated &= abs(Ls[-1] - Ls[-2]) <= DATUM_SATURATION_RTOL * Ls[-1]
        rows.append(Ls)
    return ExactCheck(
        f"x = (features, label), breast cancer, k-means (k = 6) on (features, label): Lemma 3.4 variance <= Theorem "
        f"3.1 bound with the data's pairwise L(theta) along {len(DATUM_RAYS)} fixed rays theta = s u, and L(theta) "
        "converges along each (one L for all theta on the data)", bool(ok and saturated),
        "L datum at ||theta|| = " + ", ".join(f"{s_:g}" for s_ in DATUM_SCALES) + ": "
        + "; ".join("(" + ", ".join(f"{v:.3g}" for v in Ls) + ")" for Ls in rows)
        + f"; the largest, {max(max(Ls) for Ls in rows):.3g}, serves every theta probed", part="B")


@claim("fu_zhang.thm31.assumption_mixed_labels", paper=PAPER, source="Fu & Zhang Assumption 3.1, Theorem 3.1",
       statement="Assumption 3.1 is mild: one L bounds ||grad log p(x1|theta) - grad log p(x2|theta)|| by "
                 "L||x1 - x2|| on the data that are clustered, so Theorem 3.1's bound holds.",
       family="fu_zhang_exact", expected="depends on reading",
       readings=(Reading("A", "x is the feature vector that k-means clusters; labels are not part of x, so a cluster "
                              "may mix labels.", "fails"),
                 Reading("B", "x is the whole datum (features, label), as p(x | theta) suggests.", "holds")),
       finding="Under reading A (x = the features that k-means clusters, labels not part of x), Assumption 3.1 fails "
               "on classification data with duplicated (or nearly duplicated) features and different labels. "
               "Counter-example: three copies of (1, 1) with labels (+1, -1, +1) give variance 2 and bound 0, for "
               "every L. Under reading B (x = the datum, features and label), a finite L exists on any finite data "
               "set, and Theorem 3.1's bound holds. On breast cancer one L of about 4.1 serves every theta probed "
               "on five rays (L(theta) converges as the per-datum gradients tend to 0 or y x). The literal 'for all "
               "x in R^d' fails for logistic regression under either reading (the gradient's Jacobian in x has "
               "norm >= ||theta|| ||x_perp||/4), but Theorems 3.1-3.2 use only the data. The paper does not say "
               "whether labels are part of x.")
def assumption_mixed_labels(settings: Settings) -> ClaimResult:
    exact = [*features_reading_checks(), mixed_cluster_datum_check(), breast_cancer_datum_check()]
    return ClaimResult(exact=exact, notes=[
        "under reading B the bound with the pairwise L is an identity-level consequence of sum_j ||g_j - gbar||^2 = "
        "(1/2n) sum_jl ||g_j - g_l||^2; what can fail is L being finite and bounded in theta, which the "
        "breast-cancer check tests"])


# ------------------------------------------------------------------------------------------ Theorem 3.2 vs uniform
def counter_logistic() -> tuple[np.ndarray, np.ndarray]:
    """A broad, well-classified cluster and a tight, mixed-label cluster at the decision boundary
    (docs/papers/fu_zhang.md sec. 7)."""
    rng = np.random.default_rng(12)
    xa = rng.uniform(5.0, 10.0, size=100)
    xb = 0.01 * rng.standard_normal(100)
    X = np.column_stack([np.concatenate([xa, xb]), np.ones(200)])
    y = np.concatenate([np.ones(100), np.where(np.arange(100) % 2 == 0, 1.0, -1.0)])
    return X, y


@cache
def label_pure_counterexample():
    """Both labels +1, x ~ U[5, 10] and x ~ U[-0.1, 0.1], theta = (30, 0): within Assumption 3.1 (moderate L)."""
    rng = np.random.default_rng(21)
    X = np.column_stack([np.concatenate([rng.uniform(5, 10, 100), rng.uniform(-0.1, 0.1, 100)]), np.ones(200)])
    y = np.ones(200)
    strata = kmeans_strata(X[:, :1], 2, max_iter=KMEANS_ITER, seed=KMEANS_SEED)
    return X, y, strata, np.array([30.0, 0.0])


VARIANCE_B = 20  # the minibatch of the variance comparisons


def mixed_label_variance(b: int = VARIANCE_B) -> tuple[ExactCheck, list[str]]:
    """The gradient variance at Theorem 3.2's allocation against uniform's on the mixed-label case, with the
    proportional allocation and the gradient-Neyman oracle in the notes."""
    notes = []
    X, y = counter_logistic()
    strata = kmeans_strata(X[:, :1], 2, max_iter=KMEANS_ITER, seed=KMEANS_SEED)
    g = logistic_grads(X, y, np.array([3.0, 0.0]))
    uni = uniform_variance(g, b, replace=False)
    bi = allocate(strata, b, "neyman")
    var = stratified_variance(g, strata.labels, bi, replace=False)
    check = ExactCheck(
        f"mixed-label case, theta = (3, 0): Theorem 3.2 allocation b = {bi.tolist()} (k-means clusters, n = "
        f"{strata.sizes.tolist()}): variance <= uniform SGLD minibatch of the same b", var <= uni,
        f"stratified {var:.4g} vs uniform {uni:.4g} (ratio {var / uni:.3g})", expect="fail")
    for replace in (False, True):
        u_r = uniform_variance(g, b, replace=replace)
        bp = allocate(strata, b, "proportional")
        vp = stratified_variance(g, strata.labels, bp, replace=replace)
        notes.append(f"mixed-label case, {'with' if replace else 'without'} replacement: proportional b = "
                     f"{bp.tolist()}: ratio to uniform {vp / u_r:.6f}; Theorem 3.2: "
                     f"{stratified_variance(g, strata.labels, bi, replace=replace) / u_r:.4g}")
    s_i = np.sqrt(cluster_sq_dev(g, strata.labels) / strata.sizes)
    bo = round_allocation(continuous_allocation(strata.sizes * s_i, strata.sizes, b), strata.sizes, b)
    notes.append(f"gradient-Neyman oracle (b_i ~ n_i s_i(theta)) b = {bo.tolist()}: ratio "
                 f"{stratified_variance(g, strata.labels, bo, replace=False) / uni:.3g}")
    return check, notes


def label_pure_variance_check(b: int = VARIANCE_B) -> ExactCheck:
    """The gradient variance at Theorem 3.2's allocation against uniform's on a label-pure case within
    Assumption 3.1."""
    X, y, strata, theta = label_pure_counterexample()
    g = logistic_grads(X, y, theta)
    bi = allocate(strata, b, "neyman")
    var, uni = stratified_variance(g, strata.labels, bi, replace=False), uniform_variance(g, b, replace=False)
    L = pairwise_lipschitz(X, g)
    return ExactCheck(
        f"label-pure case within Assumption 3.1 (both labels +1; x ~ U[5, 10] and U[-0.1, 0.1]), theta = (30, 0): "
        f"Theorem 3.2 allocation b = {bi.tolist()}: variance <= uniform", var <= uni,
        f"stratified {var:.4g} vs uniform {uni:.4g} (ratio {var / uni:.2f}) although ||g_i - g_j|| <= {L:.3g} "
        "||x_i - x_j|| on the data", expect="fail")


@claim("fu_zhang.thm32.never_worse_than_uniform", paper=PAPER,
       source="Fu & Zhang Sec. 3.2, Theorem 3.2 and the Remark after Theorem 3.4 ('E||dV_l||^2 is reduced owing to CP "
              "strategy')",
       statement="CP (k-means clusters with Theorem 3.2's b_i) reduces the stochastic-gradient variance E||dV_l||^2 "
                 "relative to SGLD's uniform minibatch of the same size.",
       family="fu_zhang_exact", expected="fails",
       erratum="The gradient variance itself can be far above uniform sampling's: 4.80x in a label-pure logistic case "
               "that satisfies Assumption 3.1 (both labels +1, x ~ U[5, 10] and U[-0.1, 0.1], theta = (30, 0), b = 20, "
               "b_i = (1, 19)) and 11.1x in a mixed-label case (theta = (3, 0), b = 20, b_i = (1, 19)). Theorem "
               "3.2 allocates by the data variance v_i, a surrogate that ignores how the gradient varies across "
               "clusters; what it does reduce is the surrogate bound (fu_zhang.thm32.surrogate_never_above_uniform). "
               "Proportional allocation is never above uniform with replacement; without replacement it can be, "
               "through the finite-population factors (1.005x here; Cochran, Sampling Techniques 5.6).")
def never_worse_than_uniform(settings: Settings) -> ClaimResult:
    mixed, notes = mixed_label_variance()
    return ClaimResult(exact=[label_pure_variance_check(), mixed], notes=notes)
