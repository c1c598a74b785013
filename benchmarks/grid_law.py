"""Speed of the grid law (theory.grid_law), printed next to the simulator in the same run.

1. 1-D: the stationary law of SGLD (n = 3 of N = 12 without replacement: an enumerated minibatch mixture) on the
   one-covariate logistic regression, to tol = 1e-8 (target: under 1 s).
2. 2-D: the stationary law on the breast-cancer logistic regression (intercept + "mean radius", N = 569) to
   tol = 1e-6 (target: under 30 s), for Euler and for SGLD with n = 10 (with replacement: the exact minibatch law
   psi^n; ``--without`` adds the without-replacement law through Newton's identities).

Beside each, a simulation of the same sampler: its throughput in chain-steps per second, and the time it would need
for a standard error equal to the grid law's error estimate on E theta_1 (M chains x T steps with s.e. =
sd / sqrt(M T / tau), tau = 1 + 2 sum of the autocorrelations, from the grid law's own asymptotic variance).

Usage: python benchmarks/grid_law.py [--quick] [--without]   (the last line: key=value pairs)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from simulate import euler, run, sgld
from simulate.models.low_dim_logistic import breast_cancer_2d, small_logistic_1d
from theory.grid import grid_law


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def simulation_equivalent(sampler, law, chains: int = 2000, steps: int = 200) -> tuple[float, float]:
    """(chain-steps per second, seconds a simulation needs to reach the grid law's error on E theta_1)."""
    sec, _ = timed(lambda: run(sampler, chains, steps, seed=1, theta0=law.posterior_expectation(lambda x: x).value))
    rate = chains * steps / sec
    def f(x):
        return x[:, 0]

    ta = law.time_average(f, n_steps=10**6, burn_in=10**4)  # L Var(avg) -> the asymptotic variance
    asym = ta.variance * 10**6
    err = max(law.stationary_expectation(f).error, 1e-16)
    return rate, asym / err**2 / rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="looser 2-D tolerance (a smoke run)")
    ap.add_argument("--without", action="store_true", help="also SGLD without replacement in 2-D (slow)")
    args = ap.parse_args()
    out = {}
    m1 = small_logistic_1d()
    s1 = sgld(m1, 0.5 / m1.grad_lipschitz, 3)
    t1, law1 = timed(lambda: grid_law(s1, tol=1e-8))
    v1 = law1.stationary_expectation(lambda x: x[:, 0])
    rate, sim = simulation_equivalent(s1, law1)
    print(f"1-D SGLD (n = 3 of 12): stationary law to 1e-8 in {t1:.3f} s (grid {law1.fine.grid.sizes}); "
          f"E theta = {float(v1.value):.10f} +- {v1.error:.1g}; a simulation needs {sim:.3g} s for that error "
          f"({rate:.3g} chain-steps/s)")
    out["t_1d"] = t1
    m2 = breast_cancer_2d()
    tol2 = 1e-4 if args.quick else 1e-6
    cases = {"euler": euler(m2, 0.5 / m2.grad_lipschitz), "sgld_wr": sgld(m2, 0.2 / m2.grad_lipschitz, 10, True)}
    if args.without:
        cases["sgld"] = sgld(m2, 0.2 / m2.grad_lipschitz, 10)
    for key, s in cases.items():
        t2, law2 = timed(lambda s=s: grid_law(s, tol=tol2))
        v2 = law2.stationary_expectation(lambda x: x)
        print(f"2-D {key} (breast cancer, N = 569): stationary law to {tol2:g} in {t2:.2f} s (grid "
              f"{law2.fine.grid.sizes}); E theta = {np.round(v2.value, 8).tolist()} +- {v2.error:.1g}")
        out[f"t_2d_{key}"] = t2
    print(" ".join(f"{k}={v:.4g}" for k, v in out.items()))


if __name__ == "__main__":
    main()
