"""Does choosing (h, n) by the kernel Stein discrepancy pick the MSE optimum? SGLD on the 2-D breast-cancer logistic
posterior, every number exact (theory.grid_law), none simulated.

For SGLD (minibatches of n drawn with replacement: the exact minibatch law psi^n) over a grid of step sizes h and
minibatch sizes n, from the stationary law of the grid law:

* KSD: the population kernel Stein discrepancy (IMQ kernel, c = 1, scale 1) of the stationary law against the
  posterior (:func:`theory.grid.ksd.population_ksd2`), beside the posterior's own (quadrature's) KSD, which is ~0;
* W2: Gelbrich's lower bound from the exact means and covariances (:func:`theory.distances.gelbrich_w2`). An exact
  2-D W2 is not computed: the optimal transport between the grid's node masses (an LP with one unknown per pair of
  nodes, about 10^6 here) would not even be the answer, since node masses a spacing Delta apart turn a small shift
  delta of a law into a transport cost of about Delta delta, i.e. W2 ~ sqrt(Delta delta) instead of delta (the same
  holds for a sliced W2 on the nodes), and the laws' moments are exact;
* the exact bias of the posterior mean (both coordinates) and the MSE of the time average of theta_0 (the
  coefficient of "mean radius") over the steps a fixed budget of per-datum gradients buys, G / n steps, from the
  posterior mode with the first tenth discarded (:meth:`theory.GridLaw.time_average`, exact for any window).

It prints the table, draws output/ksd_tradeoff.png and answers whether the KSD's argmin over (h, n) is the MSE's.

Usage: python benchmarks/ksd_tradeoff.py [--quick] [--ns 3,10,30]   (the last line: key=value pairs)
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import numpy as np

from simulate import sgld
from simulate.models.low_dim_logistic import breast_cancer_2d
from theory.distances import gelbrich_w2
from theory.grid import grid_law
from theory.grid.ksd import population_ksd2

#: Per-datum gradient budget of the time average, and the grid tolerance.
BUDGET, TOL = 200_000, 1e-3


def _moments(expect) -> tuple[np.ndarray, np.ndarray]:
    """(mean, covariance) from an expectation routine of the grid law (stationary or posterior)."""
    v = np.asarray(expect(lambda x: np.stack([x[:, 0], x[:, 1], x[:, 0] ** 2, x[:, 0] * x[:, 1], x[:, 1] ** 2],
                                             axis=1)).value)
    m = v[:2]
    return m, np.array([[v[2], v[3]], [v[3], v[4]]]) - np.outer(m, m)


def row(model, h_over_l: float, n: int) -> dict:
    """The exact diagnostics of SGLD at (h, n)."""
    h = h_over_l / model.grad_lipschitz
    t0 = time.perf_counter()
    law = grid_law(sgld(model, h, n, True), model.posterior_mode(), tol=TOL)
    (m, S), (mu, P) = _moments(law.stationary_expectation), _moments(law.posterior_expectation)
    steps = BUDGET // n
    ta = law.time_average(lambda x: x[:, 0], n_steps=steps - steps // 10, burn_in=steps // 10, target=float(mu[0]))
    return {"hL": h_over_l, "n": n, "ksd": float(np.sqrt(max(population_ksd2(law).value, 0.0))),
            "gelbrich": gelbrich_w2(m, S, mu, P), "bias0": m[0] - mu[0],
            "bias1": m[1] - mu[1], "mse": ta.mse, "var": ta.variance, "steps": steps,
            "err": law.stationary_expectation(lambda x: x).error, "seconds": time.perf_counter() - t0,
            "ksd_post": float(np.sqrt(max(population_ksd2(law, posterior=True).value, 0.0)))}


def draw(rows: list[dict], path: Path) -> None:
    """KSD, W2 lower bound, |bias| and MSE against h, one line per n, the optima marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8))
    keys = [("ksd", "KSD (IMQ), exact"), ("w2", "W2 >= Gelbrich bound (exact moments)"),
            ("absbias", "|bias of E theta| (exact)"), ("mse", f"MSE of the time average of theta_0, budget {BUDGET}")]
    for ax, (k, title) in zip(axes, keys, strict=True):
        best = min(rows, key=lambda r: r[k])
        for n in sorted({r["n"] for r in rows}):
            rs = [r for r in rows if r["n"] == n]
            ax.plot([r["hL"] for r in rs], [r[k] for r in rs], "o-", label=f"n = {n}")
        ax.plot(best["hL"], best[k], "k*", ms=14, label="argmin")
        ax.set(xscale="log", yscale="log", xlabel="h L", title=title)
        ax.set_xticks(sorted({r["hL"] for r in rows}), [f"{v:g}" for v in sorted({r["hL"] for r in rows})])
        ax.minorticks_off()
        ax.title.set_fontsize(9)
    axes[0].legend(fontsize=7)
    fig.suptitle("SGLD on the breast-cancer logistic posterior (N = 569): exact diagnostics from theory.grid_law")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a 2 x 2 grid of (h, n) (a smoke run)")
    ap.add_argument("--ns", default="10,30,100",
                    help="minibatch sizes (comma-separated; n = 3 makes wide laws: about 4x the run time)")
    args = ap.parse_args()
    hs, ns = ((0.2, 0.5), (10, 50)) if args.quick else ((0.1, 0.25, 0.5), tuple(int(v) for v in args.ns.split(",")))
    model = breast_cancer_2d()
    t0 = time.perf_counter()
    rows = [row(model, h, n) for h, n in itertools.product(hs, ns)]
    for r in rows:
        r["w2"], r["absbias"] = r["gelbrich"], float(np.hypot(r["bias0"], r["bias1"]))
    print(f"SGLD (with replacement) on breast_cancer_2d, budget {BUDGET} per-datum gradients, grid tol {TOL:g}")
    print(f"{'hL':>5} {'n':>4} {'KSD':>9} {'W2>=Gelb':>9} {'bias th0':>10} {'bias th1':>10} "
          f"{'MSE th0':>10} {'Var th0':>10} {'steps':>6} {'grid err':>8} {'s':>5}")
    for r in rows:
        print(f"{r['hL']:5.2f} {r['n']:4d} {r['ksd']:9.4f} {r['gelbrich']:9.5f} {r['bias0']:10.6f} "
              f"{r['bias1']:10.6f} {r['mse']:10.3e} {r['var']:10.3e} {r['steps']:6d} {r['err']:8.1e} "
              f"{r['seconds']:5.1f}")
    print(f"posterior's own KSD on the grids (quadrature check): up to {max(r['ksd_post'] for r in rows):.2g}")
    opt = {k: min(rows, key=lambda r, k=k: r[k]) for k in ("ksd", "w2", "absbias", "mse")}
    for k, r in opt.items():
        print(f"argmin {k}: h L = {r['hL']}, n = {r['n']} (MSE there {r['mse']:.3e}, "
              f"{r['mse'] / opt['mse']['mse']:.2f} x the optimum)")
    same = (opt["ksd"]["hL"], opt["ksd"]["n"]) == (opt["mse"]["hL"], opt["mse"]["n"])
    print(f"choosing (h, n) by KSD picks the MSE optimum: {'yes' if same else 'no'}")
    path = Path("output") / "ksd_tradeoff.png"
    draw(rows, path)
    print(f"figure: {path}")
    print(f"same_optimum={int(same)} mse_ratio_at_ksd_choice={opt['ksd']['mse'] / opt['mse']['mse']:.4g} "
          f"seconds={time.perf_counter() - t0:.4g}")


if __name__ == "__main__":
    main()
