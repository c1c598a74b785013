"""``tradeoffs(model, budget, objective)``: the exact optimal (h, n) of every sampler under one budget, with its MSE
surface, stability edge, explanation and a simulation spot-check (the explorer's API; module docstrings of
:mod:`.objective`, :mod:`.surface`, :mod:`.spotcheck` give the definitions)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from simulate.validation import ParameterError

from .grid_route import linearised
from .matched import MatchedStep, matched_discretisation
from .models import ModelSpec
from .objective import Budget, Objective
from .optimise import Optimum, optimum
from .samplers import SAMPLERS, SamplerOptions, SamplerSpec, sampler_spec
from .spotcheck import MAX_WORK, SpotCheck, spot_check
from .surface import FRACTIONS, Surface, default_n_values, surfaces

#: What h means per sampler, printed under any table that puts SGHMC beside a Langevin sampler.
STEP_MEANINGS = ("note: h is not the same discretisation for every row: for the Langevin samplers it is the time "
                 "step of theta' = theta + (h/2) g + sqrt(h) xi, for SGHMC the learning rate eta = eps^2 of Chen, "
                 "Fox & Guestrin's eq. (15) (eps its time step, alpha = eps C), whose matched Langevin step is "
                 "h = 2 eta / alpha (the same drift and diffusion per step; exact at alpha = 1, where eq. (15) is "
                 "SGLD with h = 2 eta: theory.tradeoffs.langevin_equivalent_step); rows are compared at the same "
                 "budget of gradient evaluations (matched cost), each at its own optimal h, and SGHMC's row compares "
                 "it with SGLD at its own n and matched h (matched cost and discretisation)")


@dataclass
class SamplerResult:
    """One sampler's answer in a :class:`Tradeoff`.

    Parameters
    ----------
    spec : SamplerSpec
        The sampler.
    surface : Surface, optional
        Its exact MSE surface over (n, h).
    optimum : Optimum, optional
        Its exact optimum.
    spot : SpotCheck, optional
        The simulation spot-check at the optimum.
    error : str, optional
        Why there is no optimum (the engine's reason, a slow case not asked for, or a budget that buys no step).
    settings : str
        The sampler's fixed settings in words.
    notes : list of str
        What the answer leaves out (minibatch sizes not evaluated before the deadline, grid points the engine found
        unstable below the certified edge).
    matched : MatchedStep, optional
        SGHMC only: SGLD at its optimum's n and matched step 2 eta* / alpha
        (``theory.tradeoffs.matched_discretisation``).
    seconds : float
        Time taken.
    """

    spec: SamplerSpec
    surface: Surface | None = None
    optimum: Optimum | None = None
    spot: SpotCheck | None = None
    error: str | None = None
    settings: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    matched: MatchedStep | None = None


@dataclass
class Tradeoff:
    """The answer of :func:`tradeoffs` for one model, budget and objective.

    Parameters
    ----------
    model : ModelSpec
        The model.
    budget : Budget
        The budget.
    objective : Objective
        The objective.
    options : SamplerOptions
        The settings held fixed.
    results : dict of str to SamplerResult
        One answer per sampler key, in the order asked.
    max_inflation : float
        The largest stationary variance inflation an optimum may have (inf: any).
    """

    model: ModelSpec
    budget: Budget
    objective: Objective
    options: SamplerOptions
    results: dict[str, SamplerResult] = field(default_factory=dict)
    max_inflation: float = math.inf

    @property
    def best(self) -> SamplerResult | None:
        """The sampler with the smallest exact MSE at its optimum."""
        ok = [r for r in self.results.values() if r.optimum is not None]
        return min(ok, key=lambda r: r.optimum.mse) if ok else None

    def header(self) -> list[str]:
        """The table's header lines (model, budget, objective, column names).

        Returns
        -------
        list of str
            The lines.
        """
        N = self.model.n_data
        head = (f"{'sampler':26s} {'n*':>6s} {'h*':>10s} {'h*/edge':>8s} {'L':>9s} {'MSE':>10s} {'bias^2':>10s} "
                f"{'variance':>10s} {'var x':>7s} {'ESS/grad':>9s}  simulation (s.e.), z")
        return [f"model: {self.model.describe()}", f"budget: {self.budget.describe(N)}",
                f"objective: {self.objective.label}" + (
                    f", among the h whose stationary variance is within {self.max_inflation:g}x the posterior's"
                    if math.isfinite(self.max_inflation) else ""), "", head, "-" * len(head)]

    def row(self, r: SamplerResult) -> list[str]:
        """One sampler's lines of the table: its optimum, then why, its law's accuracy and any warning.

        Parameters
        ----------
        r : SamplerResult
            The sampler's answer.

        Returns
        -------
        list of str
            The lines (one line saying why when the sampler has no optimum).
        """
        o = r.optimum
        if o is None:
            return [f"{r.spec.label:26s} n/a: {r.error or 'no step fits in the budget'}"]
        s = r.spot
        sim = "-" if s is None else ("skipped" if s.skipped else f"{s.mse:.4g} ({s.se:.2g}), z = {s.z:+.2f}"
                                     + (" (capped)" if s.chains < s.asked else ""))
        acc = o.accuracy
        infl, ess = ("-", "-") if acc is None else (f"{acc.inflation:.3g}", f"{acc.ess_per_gradient:.2g}")
        out = [f"{r.spec.label:26s} {o.n:6d} {o.h:10.4g} {o.position:8.3f} {o.n_steps:9d} {o.mse:10.4g} "
               f"{o.bias2:10.4g} {o.variance:10.4g} {infl:>7s} {ess:>9s}  {sim}",
               f"{'':26s} {o.explanation}" + (f" [{r.settings}]" if r.settings else "")]
        if not o.refined:
            out.append(f"{'':26s} (h* is the grid's point, as on the page; not refined)")
        ij = None if r.surface is None else r.surface.grid_optimum(self.max_inflation)
        grid = "" if ij is None else r.surface.grid_accuracy(*ij)
        if grid:
            out.append(f"{'':26s} {grid}")
        if acc is not None:
            out.append(f"{'':26s} {acc.describe()}")
            if acc.warning():
                out.append(f"{'':26s} {acc.warning()}")
        out += [f"{'':26s} note: {t}" for t in r.notes]
        if r.matched is not None:
            out.append(f"{'':26s} {r.matched.describe()}")
        if s is not None:
            out.append(f"{'':26s} {s.describe()}")
        return out

    def table(self) -> str:
        """The console table: one row per sampler with its optimum, stability edge, spot-check and explanation.

        Returns
        -------
        str
            The table, then the best sampler and the model's approximation (if any).
        """
        lines = self.header()
        for r in self.results.values():
            lines += self.row(r)
        return "\n".join(lines + self.footer())

    def footer(self) -> list[str]:
        """The best sampler and the model's approximation (if any).

        Returns
        -------
        list of str
            The lines.
        """
        lines = []
        best = self.best
        if best is not None:
            lines += ["", f"best: {best.spec.label} at n = {best.optimum.n}, h = {best.optimum.h:.4g} "
                          f"(exact MSE {best.optimum.mse:.4g})"]
        if self.model.approximation:
            lines.append(f"note: {self.model.approximation}")
        keys = {r.spec.key for r in self.results.values()}
        if "sghmc" in keys and len(keys) > 1:
            lines.append(STEP_MEANINGS)
        return lines

    def to_dict(self) -> dict:
        """A JSON-able summary for pages and tests.

        Returns
        -------
        dict
            The model, budget and objective in words, and per sampler its label, settings, error, optimum and
            spot-check (non-finite numbers as None).
        """
        out = {"model": self.model.describe(), "budget": self.budget.describe(self.model.n_data),
               "objective": self.objective.label, "samplers": {}}
        for k, r in self.results.items():
            rec: dict = {"label": r.spec.label, "settings": r.settings, "error": r.error}
            if r.optimum is not None:
                rec["optimum"] = {f: _num(v) for f, v in r.optimum.__dict__.items()}
            if r.spot is not None:
                rec["spot"] = {f: _num(v) for f, v in r.spot.__dict__.items()}
            out["samplers"][k] = rec
        return out


def slow_reason(spec: SamplerSpec, objective: Objective, options: SamplerOptions) -> str | None:
    """Why the exact answer of a sampler is slow, or None.

    A quadratic or variance objective on an m-periodic chain needs the fourth moments of m stages per grid point.

    Parameters
    ----------
    spec : SamplerSpec
        The sampler.
    objective : Objective
        The objective.
    options : SamplerOptions
        The fixed settings (m).

    Returns
    -------
    str or None
        The reason, or None when the answer is not slow.
    """
    if spec.periodic and objective.kind != "mean":
        return (f"slow: the exact fourth moments of this {options.m}-periodic chain take seconds per (h, n) point "
                "(quadratic and variance objectives)")
    return None


def _num(v):
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    if isinstance(v, np.integer):
        return int(v)
    return v


def tradeoffs(model: ModelSpec, budget: Budget, objective: Objective | None = None, samplers=None, *,
              n_values=None, fractions=FRACTIONS, options: SamplerOptions | None = None, theta0=None,
              refine: bool = True, spot_chains: int = 1000, seed: int = 0, max_work: float = MAX_WORK,
              allow_slow: bool = False, max_inflation: float = math.inf, seconds: float | None = None) -> Tradeoff:
    """The exact optimal step size and minibatch size of each sampler under one budget.

    For each minibatch size n the engine (``theory.exact_law``) gives the stability edge, then the exact MSE of the
    time average over a grid of h, its minimum refined in h, the split into bias^2 and variance, the stationary law's
    accuracy, a one-line explanation, and a simulation spot-check of the optimum.

    Parameters
    ----------
    model : ModelSpec
        The model (:func:`toy`, :func:`gaussian_mean`, :func:`linear_regression`, :func:`logistic_laplace`).
    budget : Budget
        The computing budget.
    objective : Objective, optional
        What to minimise (default :meth:`Objective.mean`: the posterior-mean estimate of theta_1).
    samplers : iterable of str, optional
        Keys of :data:`SAMPLERS` (default: all).
    n_values : iterable of int, optional
        Minibatch sizes (default :func:`default_n_values`).
    fractions : sequence of float
        h as increasing fractions of each n's stability edge, in (0, 1).
    options : SamplerOptions, optional
        The settings held fixed (vrSG-MCMC's n1, the epoch m, SGHMC's alpha).
    theta0 : array_like, optional
        The chains' start (default 0, as ``simulate.run``).
    refine : bool
        Refine the grid's minimum in h (bounded Brent on log h).
    spot_chains, seed, max_work : int, int, float
        Chains of the spot-check at each optimum (0: none), its seed, and its cap on chains x steps.
    allow_slow : bool
        Compute an m-periodic sampler (SVRG-LD, vrSG-MCMC) with a quadratic or variance objective (exact fourth
        moments of m stages: seconds per grid point); otherwise it gets the reason in ``error``.
    max_inflation : float
        Only grid points whose stationary variance inflation max_i C_ii / Sigma_ii is at most this may be the optimum
        (inf: any; :func:`theory.tradeoffs.law_accuracy`).
    seconds : float, optional
        Time allowed per sampler: its rows run from the largest n down and stop when it is spent (the row's notes
        say which n were left out); the refinement and the spot-check are skipped when past it.

    Returns
    -------
    Tradeoff
        One :class:`SamplerResult` per sampler; one the engine cannot answer gets its reason in ``error``.

    Raises
    ------
    simulate.validation.ParameterError
        When ``model`` is not a :class:`ModelSpec`, or for an unknown sampler key.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (7) and Section 6 (the MSE of a time average at a cost); Chen, Wang,
    Zhang, Su & Carin (2019), Corollary 4 (the optimal minibatch size under a budget, computed here exactly).
    """
    if not isinstance(model, ModelSpec):
        raise ParameterError(f"model must be a theory.tradeoffs ModelSpec (toy(), linear_regression(...), ...), got "
                             f"{type(model).__name__}")
    out = Tradeoff(model, budget, objective or Objective.mean(), options or SamplerOptions(),
                   max_inflation=max_inflation)
    keys = list(SAMPLERS) if samplers is None else list(samplers)
    for i, key in enumerate(keys):
        out.results[key] = answer(out, key, n_values=n_values, fractions=fractions, theta0=theta0, refine=refine,
                                  spot_chains=spot_chains, seed=seed + 7919 * i, max_work=max_work,
                                  allow_slow=allow_slow, seconds=seconds)
    return out


def answer(question: Tradeoff, key: str, *, n_values=None, fractions=FRACTIONS, theta0=None, refine: bool = True,
           spot_chains: int = 1000, seed: int = 0, max_work: float = MAX_WORK, allow_slow: bool = False,
           seconds: float | None = None, report=None) -> SamplerResult:
    """One sampler's answer to the question of a :class:`Tradeoff` (its model, budget, objective, options and
    inflation limit): :func:`tradeoffs` for one sampler, which the explorer runs in parallel and streams.

    Parameters
    ----------
    question : Tradeoff
        The model, budget, objective, options and ``max_inflation`` (its results are not read).
    key : str
        The sampler's key in :data:`SAMPLERS`.
    n_values, fractions, theta0, refine, spot_chains, seed, max_work, allow_slow, seconds
        As :func:`tradeoffs` (``seed``: this sampler's).
    report : callable, optional
        Called with the answer so far (a :class:`SamplerResult` with the surface of the finished rows, then with the
        optimum before the spot-check), so that a caller that stops this computation at a hard time limit keeps what
        was finished (``verify.explore.table``).

    Returns
    -------
    SamplerResult
        The answer, or the reason there is none in ``error`` (never a raw solver error).

    Raises
    ------
    simulate.validation.ParameterError
        For an unknown sampler key.
    """
    t0 = time.time()
    deadline = None if seconds is None else t0 + seconds
    spec = sampler_spec(key)
    res = SamplerResult(spec)
    model, objective, options = question.model, question.objective, question.options
    slow = slow_reason(spec, objective, options)
    ns = default_n_values(model.n_data) if n_values is None else tuple(n_values)
    if slow and not allow_slow:
        res.error = slow + "; pass allow_slow=True (--allow-slow) to compute it"
    elif _optimise(res, question, ns, fractions, theta0, refine, deadline, report):
        if report is not None:
            report(res)
        if key == "sghmc" and linearised(model.model) is model.model:  # two engine calls: also past the deadline
            try:
                res.matched = matched_discretisation(model.model, objective, question.budget, res.optimum, options,
                                                     theta0)
            except ParameterError as e:
                res.notes.append(f"matched discretisation with SGLD not computed: {e}")
            if report is not None:
                report(res)
        _spot(res, question, spot_chains, seed, theta0, max_work, deadline)
    res.seconds = time.time() - t0
    return res


def _spot(res: SamplerResult, question: Tradeoff, spot_chains: int, seed: int, theta0, max_work: float,
          deadline) -> None:
    """The spot-check of ``res``'s optimum (skipped when the deadline has passed)."""
    spec, model, objective, options = res.spec, question.model, question.objective, question.options
    if spot_chains:
        o = res.optimum
        if deadline is not None and time.time() > deadline:
            res.spot = SpotCheck(0, math.nan, math.nan, o.mse, math.nan, 0.0, skipped="the time allowed was spent")
        else:
            res.spot = spot_check(spec.build(model.model, o.h, o.n, options), objective, o.burn_in, o.n_steps,
                                  o.mse, o.target, chains=spot_chains, seed=seed, theta0=theta0, max_work=max_work)


def _optimise(res: SamplerResult, q: Tradeoff, ns, fractions, theta0, refine: bool, deadline, report=None) -> bool:
    """Fill ``res`` with its sampler's surface, optimum, settings and notes; False (with the reason in ``res.error``)
    when the engine has no answer or the budget buys no step."""
    spec, model, budget, objective, options = res.spec, q.model, q.budget, q.objective, q.options
    on_row = None if report is None else (lambda s: report(SamplerResult(spec, surface=s[0])))
    try:
        (res.surface,) = surfaces(spec, model.model, objective, [budget], ns, fractions=fractions, options=options,
                                  theta0=theta0, deadline=deadline, on_row=on_row)
    except ParameterError as e:
        res.error = str(e)
        return False
    return _settle(res, q, theta0, refine, deadline, "left out: time limit (rows run from the largest n; allow more "
                   "time with --seconds)")


def _settle(res: SamplerResult, q: Tradeoff, theta0, refine: bool, deadline, why_skipped: str) -> bool:
    """The notes, optimum and settings of ``res`` from its surface (``_optimise``'s second half)."""
    spec, model, budget, options, surf = res.spec, q.model, q.budget, q.options, res.surface
    if surf.skipped_n:
        res.notes.append(f"n = {', '.join(map(str, surf.skipped_n))} {why_skipped}")
    if surf.unstable:
        res.notes.append(f"{surf.unstable} grid point(s) below the certified stability edge were found not "
                         "mean-square stable by the engine and left out")
    if surf.unresolved:
        res.notes.append(f"{surf.unresolved} grid point(s) refused by the grid law (the chain escapes its region, the "
                         "grid does not reach its tolerance, the law needs more nodes than allowed, or the chain mixes "
                         "too slowly for a time average) and left out")
    try:
        res.optimum = optimum(surf, spec, model.model, q.objective, budget, options=options, theta0=theta0,
                              refine=refine, max_inflation=q.max_inflation, deadline=deadline)
    except ParameterError as e:
        res.error = str(e)
        return False
    if res.optimum is None and surf.n.size == 0:
        res.error = f"no minibatch size finished: n = {', '.join(map(str, surf.skipped_n))} {why_skipped}"
        return False
    if res.optimum is None:
        res.error = (f"no (h, n) evaluated fits in the budget ({budget.describe(model.n_data)})"
                     + (f" with a stationary variance within {q.max_inflation:g}x the posterior's"
                        if math.isfinite(q.max_inflation) else "")
                     + (f" (n = {', '.join(map(str, surf.skipped_n))} {why_skipped})" if surf.skipped_n else ""))
        return False
    res.settings = spec.settings(options, model.n_data, res.optimum.n)
    return True


def stopped(question: Tradeoff, partial: SamplerResult | None, key: str, seconds: float, *,
            theta0=None) -> SamplerResult:
    """The answer of a sampler whose computation (:func:`answer` with ``report``) was stopped at a hard time limit:
    what it had finished, the rest named as left out for the time limit.

    Every number kept is the engine's exact answer: the optimum found before the stop (its spot-check skipped), or
    else the unrefined grid optimum of the finished rows of the surface.

    Parameters
    ----------
    question : Tradeoff
        The question asked.
    partial : SamplerResult or None
        The last answer so far that :func:`answer` reported (None: not even one row finished).
    key : str
        The sampler's key.
    seconds : float
        The time limit, for the notes.
    theta0 : array_like, optional
        The chains' start, as given to :func:`answer`.

    Returns
    -------
    SamplerResult
        The answer, with ``notes`` (or ``error``) saying what the time limit left out.

    Raises
    ------
    simulate.validation.ParameterError
        For an unknown sampler key.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (7) (the time average whose exact MSE each kept row holds).
    """
    why = f"left out: time limit (this sampler's process was stopped at {seconds:.0f} s; --seconds)"
    res = SamplerResult(sampler_spec(key), seconds=seconds)
    if partial is None or partial.surface is None or partial.surface.n.size == 0:
        res.error = f"no minibatch size finished: time limit (this sampler's process was stopped at {seconds:.0f} s)"
        return res
    if partial.optimum is not None:
        partial.spot = SpotCheck(0, math.nan, math.nan, partial.optimum.mse, math.nan, 0.0, skipped="time limit")
        partial.seconds = seconds
        return partial
    res.surface = partial.surface
    _settle(res, question, theta0, False, None, why)
    return res


__all__ = ["SamplerResult", "Tradeoff", "answer", "slow_reason", "stopped", "tradeoffs"]
