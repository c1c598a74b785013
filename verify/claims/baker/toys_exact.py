"""Baker et al., Sec. 3.2 (the bimodal Gaussian mixture), with exact references instead of long reference runs.

The paper's mixture has bivariate data and a 4-D posterior; here its scalar-data reduction
(:class:`simulate.models.scalar_mixture.ScalarMixtureLocation`: x_i ~ (1/2) N(theta_1, 1) + (1/2) N(theta_2, 1),
N = 60, 2-D posterior, bimodal under the label swap). The statement checked: SGLD chains visit both label modes.
Exact: theory.grid_law of the very SGLD object (n = 5 of N = 60 without replacement, the minibatch law through Newton's
identities with its error bound) gives, from a start in one mode, E tanh((theta_2 - theta_1)/0.5) after k steps (+1
in one mode, -1 in the other) and its stationary value, which the label symmetry makes 0; the posterior's own mass on
each side of theta_1 = theta_2 comes from cubature on the same grid. Simulation of the same object is checked against
the exact values at k = 30 and k = 300 (z-tests in the Holm family).
"""

from __future__ import annotations

import numpy as np

from simulate import run, sgld
from simulate.models.scalar_mixture import ScalarMixtureLocation
from theory.grid import grid_law
from verify.api import Check, ClaimResult, ExactCheck, Settings, claim, mean_and_se

H, N_MINI, STEPS = 0.02, 5, (30, 300)
START = np.array([-1.0, 1.0])


def _side(x: np.ndarray) -> np.ndarray:
    """tanh((theta_2 - theta_1) / 0.5): about +1 in the mode theta_1 < theta_2, -1 in the other."""
    return np.tanh((x[:, 1] - x[:, 0]) / 0.5)


@claim("baker.sec3.mixture_sgld_visits_both_modes_exact", paper="baker", family="baker_toys",
       source="Baker et al. Sec. 3.2, Fig. 2 (SGLD on the bimodal mixture), scalar-data reduction; exact law new",
       statement="On the bimodal mixture, SGLD chains started in one label mode move to the other: the exact law of "
                 "the SGLD object gives the mode occupancy after k steps, and its stationary law is label-symmetric.")
def mixture_sgld_visits_both_modes_exact(settings: Settings) -> ClaimResult:
    out = ClaimResult()
    model = ScalarMixtureLocation.simulate_data(60, theta_true=(-1.0, 1.0), seed=35)
    sampler = sgld(model, H, N_MINI)
    law = grid_law(sampler, START, tol=1e-6)
    stat = law.stationary_expectation(_side)
    post = law.posterior_expectation(_side)
    out.exact.append(ExactCheck("stationary E tanh((theta_2 - theta_1)/0.5) = 0 (label symmetry)",
                                abs(float(stat.value)) <= 10 * stat.error + 1e-7,
                                f"{float(stat.value):.3g} +- {stat.error:.1g}; posterior {float(post.value):.3g}",
                                kind="consistency"))
    res = run(sampler, settings.chains, 1, seed=settings.seed_for("baker.sec3.mixture_exact"), theta0=START,
              record_at=list(STEPS), test_functions=())
    for k in STEPS:
        exact = law.expectation(_side, k)
        m, se = mean_and_se(_side(res.snapshots[k]))
        out.checks.append(Check(f"E tanh((theta_2 - theta_1)/0.5) after {k} steps from mode a", float(exact.value), m,
                                se, {"grid error": exact.error}))
    out.notes.append(f"N = 60, n = {N_MINI}, h = {H}; grid {law.fine.grid.sizes} (coarse {law.coarse.grid.sizes}); "
                     f"exact occupancy proxy at k = {STEPS}: "
                     f"{[round(float(law.expectation(_side, k).value), 4) for k in STEPS]}, stationary "
                     f"{float(stat.value):.2g}")
    return out
