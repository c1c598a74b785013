"""The trade-off explorer on logistic regression without the Laplace approximation (theory.tradeoffs.grid_route)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simulate import sgld
from simulate.models.low_dim_logistic import small_logistic_1d
from simulate.validation import ParameterError
from theory import tradeoffs as tr
from theory.grid import grid_law
from theory.tradeoffs.grid_route import GridRouteLaw, law_for_sampler


def test_the_grid_route_is_the_grid_law():
    m = small_logistic_1d()
    s = sgld(m, 0.5 / m.grad_lipschitz, 3)
    law = law_for_sampler(s)
    assert isinstance(law, GridRouteLaw)
    ta = law.time_average(np.ones(1), n_steps=50, burn_in=3)
    ref = grid_law(s, tol=1e-6).time_average(lambda x: x[:, 0], n_steps=50, burn_in=3)
    assert ta.mse == pytest.approx(ref.mse, rel=1e-9)
    mean, cov = law.stationary_moments()
    assert cov.shape == (1, 1) and cov[0, 0] > 0
    with pytest.raises(ParameterError, match="not both"):
        law.time_average(np.ones(1), quadratic=np.eye(1), n_steps=5)
    with pytest.raises(ParameterError, match="dimension 1 or 2"):
        tr.logistic_exact(tr.logistic_laplace(N=50).model)


@pytest.mark.slow
def test_laplace_answer_is_compared_with_the_exact_one():
    gap = tr.laplace_versus_exact(small_logistic_1d(), tr.Budget(600), tr.Objective.mean(), "sgld", n_values=(1, 3),
                                  fractions=(0.1, 0.4, 0.9))
    assert gap.exact.mse <= gap.laplace_exact_mse * (1 + 1e-9)  # the exact optimum is optimal for the exact MSE
    assert "exactly" in gap.describe()


def test_msgld_answers_on_the_exact_route_with_the_refused_points_named():
    """mSGLD has no law on the Laplace linearisation (its noise matrix depends on theta there): its edge is the
    simulator's own bound, and the points where the grid law refuses it (past h Cov(g) / 8 ~ I its injected noise
    vanishes and the law is not resolved) are left out and counted, not an error for the whole sampler."""
    m = small_logistic_1d()
    edge = tr.surface.stability_edge(tr.sampler_spec("msgld"), m, 3, tr.SamplerOptions())
    cap = tr.sampler_spec("sgld").build(m, 0.1, 3, tr.SamplerOptions()).integrator.step_bound(m.grad_lipschitz)[0]
    assert edge == pytest.approx(cap, rel=1e-8)
    ans = tr.tradeoffs(tr.logistic_exact(m), tr.Budget(600), tr.Objective.mean(), samplers=["msgld"],
                       n_values=(3, 12), fractions=(0.1, 0.4, 0.9))
    res = ans.results["msgld"]
    assert res.error is None and res.optimum is not None and res.optimum.n == 3
    assert res.surface.unresolved == 1 and np.isnan(res.surface.mse[0, 2])
    assert any("refused by the grid law" in note for note in res.notes)
    # the refinement towards the refused neighbour (0.9 x the edge) is refused too: the grid point stands
    assert not res.optimum.refined and res.optimum.h == pytest.approx(0.4 * edge, rel=1e-12)


def test_the_grid_laws_refusals_are_one_exception_class_the_surface_recognises():
    """A refused point is a GridRefusal (a ParameterError), raised by theory.grid at each of its four refusals
    (tests/test_grid_law.py raises one); the surface leaves such a point out and lets any other ParameterError
    through."""
    import inspect

    from theory.grid import GridRefusal, chain, law
    from theory.tradeoffs.surface import _refused

    source = inspect.getsource(law) + inspect.getsource(chain)
    assert source.count("raise GridRefusal(") == 4
    assert issubclass(GridRefusal, ParameterError)
    assert _refused(GridRefusal("h = 1: the chain escapes the grid's region"))
    assert not _refused(ParameterError("h = 1: the chain escapes the grid's region"))



def test_the_grid_routes_surface_carries_the_grid_laws_error_estimates():
    """Each point of a grid-route surface keeps the grid law's error estimate of its MSE (the same number the grid law
    gives at that point); the table says how large it is and which grid points it cannot tell from the optimum."""
    m = small_logistic_1d()
    spec, obj, budget = tr.sampler_spec("sgld"), tr.Objective.mean(), tr.Budget(600)
    (surf,) = tr.surfaces(spec, m, obj, [budget], (3, 12), fractions=(0.1, 0.4, 0.9))
    ok = np.isfinite(surf.mse)
    assert np.all(np.isfinite(surf.mse_error[ok])) and np.all(surf.mse_error[ok] > 0)
    assert np.all(surf.mse_error[ok] < 1e-6 * surf.mse[ok])
    i, j = surf.grid_optimum()
    sampler = spec.build(m, float(surf.h[i, j]), int(surf.n[i]), tr.SamplerOptions())
    b, L = budget.steps(sampler)
    ref = grid_law(sampler, tol=1e-6).time_average(lambda x: x[:, 0], n_steps=L, burn_in=b)
    assert surf.mse_error[i, j] == pytest.approx(ref.error[2], rel=1e-9)
    line = surf.grid_accuracy(i, j)
    assert "resolved from every other grid point" in line
    # error estimates as wide as the MSE's spread leave the optimum unresolved, and the line names the ties
    wide = dataclasses.replace(surf, mse_error=np.where(ok, np.nanmax(surf.mse) - np.nanmin(surf.mse), np.nan))
    assert "not resolved from" in wide.grid_accuracy(i, j)
    opt = tr.optimum(surf, spec, m, obj, budget, refine=False)
    assert opt.mse_error == surf.mse_error[i, j]
