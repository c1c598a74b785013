"""Numbers quoted in docs/verdicts.md that no registered claim prints (issue 20).

Run from the repository root: ``python docs/verdicts_numbers.py [section ...]`` with sections ``fig3`` (the Figure 3
readings, a few minutes), ``fig3points``, ``proportional``, ``cor4``. Everything is exact (closed forms of theory/),
nothing is simulated here; the simulated counterparts are the claims named in docs/verdicts.md.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from simulate.estimators.allocation import allocate
from simulate.estimators.strata import kmeans_strata
from theory.bounds.vollmer import minimal_cost
from theory.noise.stratified import logistic_grads, stratified_variance, uniform_variance
from theory.toy.finite_time import toy_finite_time
from verify.claims.chen._common import gdata
from verify.claims.chen.corollary4 import BATCHES, tuned_mse
from verify.claims.fu_zhang._common import KMEANS_ITER, KMEANS_SEED
from verify.claims.fu_zhang.readings import counter_logistic
from verify.claims.vollmer.toy import default_model

FIG3_NS = (5, 10, 13, 20, 50, 100, 200, 500)


def _toy_data() -> np.ndarray:
    return default_model().data[:, 0]


def _scaled(c: float) -> np.ndarray:
    """The toy data with deviations from the mean scaled by c: Var(X) (and Var B) times c^2, mu_p unchanged."""
    x = _toy_data()
    return x.mean() + c * (x - x.mean())


def fig3_readings() -> None:
    """Minimal cost M n (eq. 69) of Euler, SGLD and mSGLD at MSE2 <= 1e-3 and 1e-4 under each reading."""
    x = _toy_data()
    mu_p = x.sum() / (1 + x.size)
    readings = [
        ("as the workbench reads it", x, {}),
        ("Var(X) / 4", _scaled(0.5), {}),
        ("Var(X) / 8", _scaled(8 ** -0.5), {}),
        ("Var(X) / 16", _scaled(0.25), {}),
        ("with replacement", x, dict(replace=True)),
        ("theta_0 = mu_p", x, dict(theta0=mu_p)),
        ("r < 1.9", x, dict(r_bounds=(1e-4, 1.9))),
    ]
    for label, data, kw in readings:
        for m in ("euler", "sgld", "msgld"):
            for b in (1e-3, 1e-4):
                ns = [None] if m == "euler" else FIG3_NS
                best = min((minimal_cost(m, data, b, None if n is None else [n], dps=30, **kw) for n in ns),
                           key=lambda c: c.cost)
                print(f"{label:26} {m:6} MSE2 <= {b:g}: cost {best.cost:9.4g}  n = {best.n:4d}  r = {best.r:.3f}  "
                      f"M = {best.M:.0f}", flush=True)


def fig3_points() -> None:
    """Exact MSE2 at the paper's read-off points of Figure 3 (n, r, M = cost/n)."""
    x = _toy_data()
    for m, n, r, M in (("sgld", 13, 0.68, 42), ("msgld", 60, 0.7, 50), ("msgld", 100, 0.7, 30),
                       ("msgld", 120, 0.7, 25)):
        print(f"{m:6} n = {n:3d} r = {r} M = {M}: exact MSE2 = {float(toy_finite_time(m, x, n, r=r).mse2(M)):.4g}")


def proportional() -> None:
    """fu_zhang.thm32.never_worse_than_uniform's case: proportional and Theorem 3.2 allocations vs uniform."""
    X, y = counter_logistic()
    strata = kmeans_strata(X[:, :1], 2, max_iter=KMEANS_ITER, seed=KMEANS_SEED)
    g = logistic_grads(X, y, np.array([3.0, 0.0]))
    for replace in (False, True):
        uni = uniform_variance(g, 20, replace=replace)
        for rule in ("proportional", "neyman"):
            bi = allocate(strata, 20, rule)
            v = stratified_variance(g, strata.labels, bi, replace=replace)
            print(f"{'with' if replace else 'without'} replacement, {rule:12} b = {bi.tolist()}: {v:.6g} vs uniform "
                  f"{uni:.6g}, ratio {v / uni:.6f}")


def cor4() -> None:
    """Tuned-step exact MSE of SGLD(n) under a budget T = n L on Chen's synthetic model (phi = theta^2, theta_0 = 0)."""
    gd = gdata()
    print(f"s_x^2 = {gd.Sxx / (gd.N - 1):.5f}, (s_x^2)^(2/3) = {(gd.Sxx / (gd.N - 1)) ** (2 / 3):.5f}")
    for T in (10**4, 10**5, 10**7, 10**9, 10**11, 10**13):
        row = {n: tuned_mse(n, T) for n in BATCHES}
        best = min(row, key=lambda n: row[n][0])
        print(f"T = {T:.0e}: " + ", ".join(f"n={n}: {v[0]:.4g} (eps P {v[1]:.3g})" for n, v in row.items())
              + f"; best n = {best}")


SECTIONS = {"fig3": fig3_readings, "fig3points": fig3_points, "proportional": proportional, "cor4": cor4}

if __name__ == "__main__":
    for name in sys.argv[1:] or list(SECTIONS):
        t0 = time.perf_counter()
        print(f"== {name}")
        SECTIONS[name]()
        print(f"({time.perf_counter() - t0:.0f} s)")
