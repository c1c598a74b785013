"""``tradeoffs(model, budget, objective)``: the exact optimal (h, n) of every sampler under one budget, with its MSE
surface, stability edge, explanation and a simulation spot-check (the explorer's API; module docstrings of
:mod:`.objective`, :mod:`.surface`, :mod:`.spotcheck` give the definitions)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from simulate.validation import ParameterError

from .models import ModelSpec
from .objective import Budget, Objective
from .samplers import SAMPLERS, SamplerOptions, SamplerSpec, sampler_spec
from .spotcheck import MAX_WORK, SpotCheck, spot_check
from .surface import FRACTIONS, Optimum, Surface, default_n_values, optimum, surfaces


@dataclass
class SamplerResult:
    """One sampler's answer: its surface, optimum, spot-check, or the engine's reason it has none (``error``)."""

    spec: SamplerSpec
    surface: Surface | None = None
    optimum: Optimum | None = None
    spot: SpotCheck | None = None
    error: str | None = None
    settings: str = ""


@dataclass
class Tradeoff:
    """The answer of :func:`tradeoffs` for one model, budget and objective."""

    model: ModelSpec
    budget: Budget
    objective: Objective
    options: SamplerOptions
    results: dict[str, SamplerResult] = field(default_factory=dict)

    @property
    def best(self) -> SamplerResult | None:
        """The sampler with the smallest exact MSE at its optimum."""
        ok = [r for r in self.results.values() if r.optimum is not None]
        return min(ok, key=lambda r: r.optimum.mse) if ok else None

    def table(self) -> str:
        """The console table: one row per sampler, its optimum, stability edge, spot-check and explanation."""
        N = self.model.n_data
        lines = [f"model: {self.model.describe()}", f"budget: {self.budget.describe(N)}",
                 f"objective: {self.objective.label}", ""]
        head = (f"{'sampler':26s} {'n*':>6s} {'h*':>10s} {'h*/edge':>8s} {'L':>9s} {'MSE':>10s} {'bias^2':>10s} "
                f"{'variance':>10s}  simulation (s.e.), z")
        lines += [head, "-" * len(head)]
        for r in self.results.values():
            o = r.optimum
            if o is None:
                lines.append(f"{r.spec.label:26s} n/a: {r.error or 'no step fits in the budget'}")
                continue
            sim = "-" if r.spot is None else (r.spot.skipped and "skipped") or (
                f"{r.spot.mse:.4g} ({r.spot.se:.2g}), z = {r.spot.z:+.2f}")
            lines.append(f"{r.spec.label:26s} {o.n:6d} {o.h:10.4g} {o.h / o.edge:8.3f} {o.n_steps:9d} {o.mse:10.4g} "
                         f"{o.bias2:10.4g} {o.variance:10.4g}  {sim}")
            lines.append(f"{'':26s} {o.explanation}" + (f" [{r.settings}]" if r.settings else ""))
        best = self.best
        if best is not None:
            lines += ["", f"best: {best.spec.label} at n = {best.optimum.n}, h = {best.optimum.h:.4g} "
                          f"(exact MSE {best.optimum.mse:.4g})"]
        if self.model.approximation:
            lines.append(f"note: {self.model.approximation}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-able summary (optima, spot-checks, errors) for pages and tests."""
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
    """Why the exact answer is slow, or None: a quadratic objective on an m-periodic chain needs the fourth moments
    of m stages per grid point (seconds each: about 7 s per point at m = 10 on a 2-core machine)."""
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
              allow_slow: bool = False) -> Tradeoff:
    """The exact optimal (h, n) of each sampler (default: all of :data:`.samplers.SAMPLERS`) for ``model`` under
    ``budget``, minimising ``objective`` (default: the MSE of the posterior-mean estimate of theta_1).

    ``n_values``: minibatch sizes to try (default :func:`.surface.default_n_values`); ``fractions``: h as fractions of
    each n's stability edge; ``theta0``: the chains' start (default 0, as :func:`simulate.run`); ``spot_chains``: chains
    of the simulation spot-check at each optimum (0: none), capped by ``max_work`` chain-steps. A sampler the engine
    cannot answer for this objective gets its reason in ``error`` instead of an optimum; so does an m-periodic
    sampler (SVRG-LD, vrSG-MCMC) with a quadratic objective unless ``allow_slow`` (:func:`slow_reason`)."""
    if not isinstance(model, ModelSpec):
        raise ParameterError(f"model must be a theory.tradeoffs ModelSpec (toy(), linear_regression(...), ...), got "
                             f"{type(model).__name__}")
    objective = objective or Objective.mean()
    options = options or SamplerOptions()
    keys = list(SAMPLERS) if samplers is None else list(samplers)
    ns = default_n_values(model.n_data) if n_values is None else tuple(n_values)
    out = Tradeoff(model, budget, objective, options)
    for i, key in enumerate(keys):
        spec = sampler_spec(key)
        res = SamplerResult(spec)
        out.results[key] = res
        slow = slow_reason(spec, objective, options)
        if slow and not allow_slow:
            res.error = slow + "; pass allow_slow=True to compute it"
            continue
        try:
            (surf,) = surfaces(spec, model.model, objective, [budget], ns, fractions=fractions, options=options,
                               theta0=theta0)
            res.surface = surf
            res.optimum = optimum(surf, spec, model.model, objective, budget, options=options, theta0=theta0,
                                  refine=refine)
        except ParameterError as e:
            res.error = str(e)
            continue
        if res.optimum is None:
            res.error = f"the budget buys no step at any n (it is {budget.describe(model.n_data)})"
            continue
        o = res.optimum
        res.settings = spec.settings(options, model.n_data, o.n)
        if spot_chains:
            sampler = spec.build(model.model, o.h, o.n, options)
            res.spot = spot_check(sampler, objective, o.burn_in, o.n_steps, o.mse, o.target, chains=spot_chains,
                                  seed=seed + 7919 * i, theta0=theta0, max_work=max_work)
    return out


__all__ = ["SamplerResult", "Tradeoff", "slow_reason", "tradeoffs"]
