"""Kernel Stein discrepancy: the IMQ Stein kernel, the population KSD of an exact grid law, and the U-statistic of
simulated chains (with its wild bootstrap) against it."""

from __future__ import annotations

import numpy as np
import pytest

from simulate import run, sgld
from simulate.analysis.ksd import ksd_u_statistic, stein_kernel
from simulate.models.low_dim_logistic import small_logistic_1d
from simulate.validation import ParameterError
from theory.grid import grid_law
from theory.grid.ksd import population_ksd2


def test_stein_kernel_has_mean_zero_under_the_target():
    """E_{x ~ N(0,1)} k_p(x, y) = 0 for every y (Stein's identity), by the trapezoid rule (spectral here)."""
    x = np.linspace(-14, 14, 4001)
    w = np.exp(-x**2 / 2)
    w = w / w.sum()
    y = np.array([[-1.3], [0.2], [2.0]])
    K = stein_kernel(x[:, None], y, -x[:, None], -y, c=1.0, scale=0.7)
    assert np.abs(w @ K).max() < 1e-10


@pytest.mark.slow
def test_population_ksd_and_the_u_statistic_of_simulated_chains():
    m = small_logistic_1d()
    s = sgld(m, 1.2 / m.grad_lipschitz, 1)
    law = grid_law(s, tol=1e-8)
    ref = population_ksd2(law, posterior=True)
    assert abs(ref.value) <= 2 * ref.error + 1e-9  # the posterior's own KSD is 0, up to the quadrature's error
    exact = population_ksd2(law)
    assert exact.value > 100 * max(abs(ref.value), exact.error)  # SGLD's stationary law is not the posterior
    res = run(s, 3000, 1, burn_in=400, seed=2, record_at=[400], test_functions=())
    x = res.snapshots[400]
    est = ksd_u_statistic(x, m.grad_log_post(x), ell=0.5, n_boot=200)
    boot_sd = float(np.std(est.bootstrap)) * 2  # the spread of the statistic at this n, about 2x the null's
    assert abs(est.ksd2 - exact.value) < 4 * boot_sd + 4 * exact.value / np.sqrt(3000)
    with pytest.raises(ParameterError, match="scores must have the shape"):
        ksd_u_statistic(x, x[:10])
