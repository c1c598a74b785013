"""Speed of the exact engine (theory.linear_gaussian), printed next to the simulator in the same run.

1. Stationary covariance of SGLD (n = 100 without replacement, h = 0.5/L) on Bayesian linear regression with
   N = 10^4 data and d = 20, 100 (targets: under 0.1 s and under 5 s), against a simulation of 1000 chains over
   1000 steps (d = 100: 200 x 200; its Monte Carlo error on the diagonal is printed too).
2. The MSE of the time average of a^T theta over L = 10^3 and L = 10^9 steps (target: the same time), for d = 3
   (explicit route, O(log L)) and d = 20 (large-state route: closed sums plus the transient).

Usage: python benchmarks/exact_engine.py [--quick]   (the last line: key=value pairs)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simulate import LinearRegressionModel, run, sgld
from theory import exact_law


def best_of(f, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def regression(d: int) -> LinearRegressionModel:
    """N = 10^4 rows z_i = s_i w_i (w_i ~ N(0, I_d), log s_i ~ N(0, 0.25^2)), y_i = z_i^T (1, -1/2, 1/4, ...) + e_i:
    simulate_data's design, built here for any d."""
    rng = np.random.default_rng(d)
    Z = rng.standard_normal((10_000, d)) * np.exp(0.25 * rng.standard_normal(10_000))[:, None]
    return LinearRegressionModel(Z, Z @ (-0.5) ** np.arange(d) + rng.standard_normal(10_000))


def stationary(d: int, sim_steps: int, chains: int) -> dict:
    model = regression(d)
    sampler = sgld(model, 0.5 / model.grad_lipschitz, 100)
    t_engine, C = best_of(lambda: exact_law(sampler).stationary_cov(), 3 if d <= 20 else 1)
    law = exact_law(sampler)
    t0 = time.perf_counter()
    res = run(sampler, chains, sim_steps // 2, burn_in=sim_steps // 2, theta0=law.posterior_mean, seed=1,
              test_functions=("theta", "theta2"))
    t_sim = time.perf_counter() - t0
    var_sim = res.time_averages["theta2"].mean(0) - res.time_averages["theta"].mean(0) ** 2
    err = float(np.median(np.abs(var_sim / np.diag(C) - 1.0)))
    print(f"stationary covariance, SGLD, N = 10^4, n = 100, d = {d:3d}: engine {t_engine:8.4f} s | simulation of "
          f"{chains} chains x {sim_steps} steps {t_sim:7.2f} s (median relative error of its diagonal {err:.2g}) | "
          f"simulation / engine = {t_sim / t_engine:8.1f}")
    return {f"stationary_d{d}_s": t_engine, f"sim_d{d}_s": t_sim}


def time_average(d: int, chains: int) -> dict:
    model = regression(d)
    sampler = sgld(model, 0.5 / model.grad_lipschitz, 100)
    a = np.ones(d)
    times = {}
    for L in (10**3, 10**9):
        law = exact_law(sampler, theta0=np.zeros(d))
        law.stationary_cov()  # the stationary law is shared by every window; time the window's own work
        times[L], mse = best_of(lambda L=L, law=law: law.time_average_mse(a, n_steps=L, burn_in=100), 3)
    t0 = time.perf_counter()
    run(sampler, chains, 10**3, burn_in=100, theta0=np.zeros(d), seed=2, test_functions=("theta",))
    t_sim = time.perf_counter() - t0
    route = "explicit, O(log L)" if law.explicit else "closed sums + transient"
    print(f"time-average MSE, d = {d:3d} ({route}): L = 10^3 {times[10**3]:.4f} s, L = 10^9 {times[10**9]:.4f} s "
          f"(ratio {times[10**9] / times[10**3]:.2f}) | simulation of {chains} chains x 10^3 steps {t_sim:.2f} s | "
          f"simulation / engine (L = 10^3) = {t_sim / times[10**3]:.1f}")
    return {f"ta_d{d}_L1e3_s": times[10**3], f"ta_d{d}_L1e9_s": times[10**9]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="d = 20 only, fewer chains and steps")
    args = p.parse_args(argv)
    out = {}
    chains, steps = (200, 200) if args.quick else (1000, 1000)
    for d in (20,) if args.quick else (20, 100):
        out.update(stationary(d, steps if d <= 20 else steps // 5, chains if d <= 20 else chains // 5))
    for d in (3,) if args.quick else (3, 20):
        out.update(time_average(d, chains))
    print(" ".join(f"{k}={v:.4g}" for k, v in out.items()))


if __name__ == "__main__":
    main()
