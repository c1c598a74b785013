"""The explorer's optimum by brute force: every grid point computed afresh from the exact engine."""

from __future__ import annotations

import numpy as np

from theory import exact_law
from theory import tradeoffs as tr
from theory.tradeoffs.surface import PERIODIC_EDGE_RTOL


def brute_force(N: int, objective: str, sampler: str, budget: float, fractions, n_values):
    """The smallest exact MSE over the grid, every point computed afresh from the engine: (n, h, mse)."""
    model = tr.toy(N).model
    spec, opts = tr.SAMPLERS[sampler], tr.SamplerOptions()
    best = (None, None, np.inf)
    for n in spec.n_values(sorted({*n_values, N}), N):
        if spec.periodic:  # their edge: the stable end of a coarse bracket, searched from h = 1 / L as the explorer's
            law = exact_law(spec.build(model, 1.0 / model.grad_lipschitz, n, opts))
            edge = law.stability_bracket(PERIODIC_EDGE_RTOL).lo
        else:
            edge = exact_law(spec.build(model, 1e-3, n, opts)).stability_limit(rtol=1e-6)
        for f in fractions:
            s = spec.build(model, edge * f, n, opts)
            win = tr.Budget(budget).steps(s)
            if win is None:
                continue
            law = exact_law(s)
            kw = {"quadratic": np.eye(1)} if objective == "quadratic" else {"a": np.ones(1)}
            mse = law.time_average_mse(**kw, n_steps=win[1], burn_in=win[0])
            if mse < best[2]:
                best = (n, edge * f, mse)
    return best
