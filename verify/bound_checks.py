"""The claim of a bound from its atlas (:func:`theory.atlas.evaluate_bound`): exact checks, notes and a figure.

Part "bound" (claims registered "holds as a bound"; other claims take the same checks without parts):
* per (problem, n), "holds at every point inside the bound's assumptions": passes when no point is a violation
  (bound < the exact distance, or < its lower end where only moments are known); the detail names the tightest and
  the loosest ratio bound / exact and, when it fails, the counter-example;
* the assumption checks: m and M from the spectrum against the model's own Lipschitz constant, sigma^2's noise law
  against the minibatch covariance of the model's own per-datum gradients at a point, and (ULA) the engine's
  stability limit against the closed form 4/M that the step grid is built from.
Part "behaviour" (claims registered "holds as a bound"): per (problem, n), the bound's order in h equals the
exact order (|q_bound - q_exact| <= 0.15), each expected to fail (the registered finding: the orders differ).

A bound whose value raised or was not a number >= 0 at some point makes the claim raise (verdict "error"), naming
the bound and the first such points; the atlas page still shows every other point.
"""

from __future__ import annotations

import numpy as np

from simulate import euler
from simulate.validation import ParameterError
from theory.atlas import BoundResult, problem
from theory.atlas.constants import noise_trace
from theory.linear_gaussian import exact_law
from theory.noise.minibatch import minibatch_noise_cov

from .checks import BEHAVIOUR, BOUND, ExactCheck
from .registry import REGISTRY, ClaimResult

#: The largest |q_bound - q_exact| counted as the same order in h.
ORDER_TOLERANCE = 0.15


def _label(name: str, n) -> str:
    return name if n is None else f"{name}, n = {n}"


def _cell_check(result: BoundResult, name: str, n) -> ExactCheck | None:
    pts = [p for p in result.points if p.problem == name and p.n == n]
    counted = [p for p in pts if p.status in ("holds", "violated", "undecided")]
    if not counted:
        return None
    ratios = [p for p in counted if p.lo > 0]
    tight = min(ratios, key=lambda p: p.ratio) if ratios else None
    loose = max(ratios, key=lambda p: p.ratio) if ratios else None
    bad = [p for p in counted if p.status == "violated"]
    parts = [f"{len(counted)} points inside ({len(pts) - len(counted)} outside), "
             f"{sum(p.vacuous for p in counted)} vacuous, {sum(p.status == 'undecided' for p in counted)} undecided"]
    if tight is not None:
        parts.append(f"tightest bound/exact {tight.ratio:.4g} (h = {tight.h:.3g}, K = {tight.K}), loosest "
                     f"{loose.ratio:.4g} (h = {loose.h:.3g}, K = {loose.K})")
    if bad:
        w = min(bad, key=lambda p: p.value / p.lo)
        parts.append(f"{len(bad)} violations; worst: bound {w.value:.6g} < exact {w.lo:.6g} at h = {w.h:.6g}, "
                     f"K = {w.K}")
    return ExactCheck(f"holds at every point inside its assumptions: {_label(name, n)}", not bad, "; ".join(parts),
                      kind="exact", part=BOUND)


def _spectrum_check(result: BoundResult) -> ExactCheck:
    rows, ok = [], True
    for name in sorted({p.problem for p in result.points}):
        prob = problem(name)
        L = float(prob.model.grad_lipschitz)
        good = abs(prob.M - L) <= 1e-9 * L and prob.m > 0
        ok &= good
        rows.append(f"{name}: m = {prob.m:.6g}, M = {prob.M:.6g}, model's L = {L:.6g}")
    return ExactCheck("m > 0 and M from the spectrum of the posterior precision equal the model's own Lipschitz "
                      "constant", ok, "; ".join(rows), kind="exact", part=BOUND)


def _noise_check(result: BoundResult) -> ExactCheck | None:
    """The atlas's noise trace (from the affine parts) against the trace of the minibatch covariance of the model's
    own per-datum gradients at a point (:func:`theory.noise.minibatch.minibatch_noise_cov` on
    ``model.grad_log_lik``): two independent routes."""
    b = result.bound
    if b.sampler not in ("sgld", "sgld_cv"):
        return None
    rows, ok = [], True
    for name, n in sorted({(p.problem, p.n) for p in result.points}, key=str):
        prob = problem(name)
        x = prob.mean + 0.1 * prob.offset
        idx = np.arange(prob.N)[:, None]
        G = prob.model.grad_log_lik(x[None, :], idx)[:, 0, :]
        if b.sampler == "sgld_cv":
            G = G - prob.model.grad_log_lik(prob.mean[None, :], idx)[:, 0, :]
        sim = float(np.trace(minibatch_noise_cov(G, n, replace=False)))
        ours = noise_trace(prob, b.sampler, n, x, np.zeros((prob.p, prob.p)))
        good = abs(sim - ours) <= 1e-8 * max(abs(sim), 1e-12 * float(np.sum(G**2)), 1e-300)
        ok &= good
        rows.append(f"{_label(name, n)}: {ours:.8g} vs {sim:.8g}")
    return ExactCheck("sigma^2's noise law: E tr Cov(g | theta) at a point equals the trace of the minibatch "
                      "covariance of the model's own per-datum gradients there", ok, "; ".join(rows), kind="exact",
                      part=BOUND)


def _stability_check(result: BoundResult) -> ExactCheck | None:
    if result.bound.sampler != "ula":
        return None
    rows, ok = [], True
    for name in [x for x in sorted({p.problem for p in result.points}) if problem(x).p <= 11][:3]:
        prob = problem(name)
        eng = exact_law(euler(prob.model, 1e-3 / prob.M)).stability_limit(rtol=1e-9)
        good = abs(eng - 4.0 / prob.M) <= 1e-6 * 4.0 / prob.M
        ok &= good
        rows.append(f"{name}: engine {eng:.8g}, 4/M = {4.0 / prob.M:.8g}")
    return ExactCheck("the step grid's top is 0.9 x the mean-square stability limit: the engine's limit for ULA "
                      "equals 4/M", ok, "; ".join(rows), kind="exact", part=BOUND)


def _order_checks(result: BoundResult) -> list[ExactCheck]:
    """The order checks of part "behaviour", for claims registered "holds as a bound": their finding is that the
    bound's order in h differs from the exact one, so each check is expected to fail (``expect="fail"``); an order
    that comes to match is an unexpected outcome and fails the run."""
    out = []
    for o in result.orders:
        same = abs(o.q_bound - o.q_exact) <= ORDER_TOLERANCE
        out.append(ExactCheck(f"the bound's order in h equals the exact order: {_label(o.problem, o.n)}", same,
                              f"exact distance ~ h^{o.q_exact:.3f}, bound ~ h^{o.q_bound:.3f} (fitted on h = "
                              f"{', '.join(f'{h:.3g}' for h in o.hs)})", kind="exact", part=BEHAVIOUR,
                              expect="fail"))
    return out


def _figure(result: BoundResult):
    def draw(ax):
        for name, n in sorted({(p.problem, p.n) for p in result.points}, key=str):
            pts = sorted((p.h, p.ratio) for p in result.points if p.problem == name and p.n == n and p.K == 10_000
                         and p.status in ("holds", "violated", "undecided") and np.isfinite(p.ratio))
            if pts:
                ax.loglog(*zip(*pts, strict=True), marker="o", ms=3, label=_label(name, n))
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_xlabel("h (workbench step)")
        ax.set_ylabel("bound / exact at K = 10^4")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6, ncol=2)

    return draw


def bound_claim_result(result: BoundResult) -> ClaimResult:
    """The ClaimResult of a bound's atlas (module docstring)."""
    b = result.bound
    errors = result.by_status("error")
    if errors:
        raise ParameterError(f"bound {b.key!r} failed at {len(errors)} atlas points; first: "
                             + " | ".join(p.message for p in errors[:3]))
    out = ClaimResult(figure=_figure(result))
    for name, n in sorted({(p.problem, p.n) for p in result.points}, key=str):
        check = _cell_check(result, name, n)
        if check is not None:
            out.exact.append(check)
    out.exact += [c for c in (_spectrum_check(result), _noise_check(result), _stability_check(result)) if c]
    claim = REGISTRY.get(b.key)
    orders = _order_checks(result)
    if claim is not None and claim.expected == "holds as a bound":
        out.exact += orders
    else:
        for check in out.exact:  # a claim registered without parts takes its checks without parts
            check.part = None
        out.notes += [f"order in h (not judged): {c.label.split(': ', 1)[1]}: {c.detail}" for c in orders]
    status = "confirmed" if b.confirmed else "unconfirmed"
    out.notes.append(f"constants {status}: " + "; ".join(f"{s.what} [{s.status}: {s.where}]" for s in b.sources))
    out.notes += [f"exact route on {k}: {v}" for k, v in sorted(result.routes.items())]
    return out


__all__ = ["ORDER_TOLERANCE", "bound_claim_result"]
