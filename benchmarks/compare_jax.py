"""``benchmarks/compare.py --backend jax``: the workbench's JAX backend, its numpy simulator and the JAX peers on the
same machine, in one process (W1, W2, W3 as defined in compare.py; JAX on whatever device it sees: a GPU when there is
one, else the CPU).

    python benchmarks/compare_jax.py [--quick] [--budget S] [--repeats R] [--only W1,W3] [--jax-float32]

Rows:

* W1 (1-D toy, SGLD, n = 10 without replacement): the workbench (``run(..., backend="jax")``, Floyd's algorithm),
  blackjax (``jax.random.choice(replace=False)`` per chain); SGMCMCJax has no sampler without replacement;
* W2 (the same with replacement): the workbench, blackjax, SGMCMCJax;
* W3 (logistic regression, d = 20, N = 10^4, n = 100, chains at the mode): SGLD, SGLD-CV, SVRG-LD (epoch N/n) of the
  workbench (without replacement, its default, and with replacement, the peers' scheme), blackjax (SGLD, SGLD-CV),
  SGMCMCJax (SGLD, SGLD-CV, SVRG-LD).

Every workbench sampler also runs on the numpy simulator (``run(...)`` with its defaults: all cores, the fused SGLD
kernels where they apply), the same sampler object at the same sizes or as many as fit ``--budget``; its row's ratio
column is the JAX backend's rate over numpy's.

Rates are chain-steps per second, compilation excluded: the workbench's from ``RunResult.seconds["run"]`` (the
compiled program's call, outputs copied to the host included), the peers' from a compiled ``jit(vmap(scan))``;
best of ``--repeats``. float64 throughout unless ``--jax-float32``. The targets of issue 26 (one H100): W1 and W2
>= 8 G chain-steps/s, W3 >= 100 M/s for SGLD, SGLD-CV and SVRG-LD, each ahead of both peers on the same device.
The last lines print every figure as ``key=value`` (``jax_figure ...``) for benchmarks/gpu_figures.sh.
"""

from __future__ import annotations

import math
import os

import compare as c
import numpy as np

from simulate import SVRG, GaussianMeanModel, Langevin, Sampler, run, sgld
from simulate.runtime.backends import JaxBackend
from simulate.samplers import sgld_cv

#: Sizes on a GPU (the issue's: W2 at M = 10^6, W3 at M = 10^4), on a CPU (compare.py's numpy sizes) and --quick.
FULL = dict(w12_chains=1_000_000, w12_steps=1_000, w3_chains=10_000, w3_steps=500)
CPU = dict(w12_chains=100_000, w12_steps=200, w3_chains=1_000, w3_steps=100)
QUICK = dict(w12_chains=10_000, w12_steps=100, w3_chains=256, w3_steps=20)
TARGETS = {"W1": 8e9, "W2": 8e9, "W3": 1e8}


def _workbench(sampler, backend: JaxBackend, theta0=None):
    """make(m, k) for compare.measure: a run of m chains x k steps on JAX; the callable returns the run's seconds
    without compilation (the program is compiled once, on the first call, and kept by ``backend``)."""
    def make(m, k):
        def f():
            res = run(sampler, m, k + 1, seed=1, theta0=theta0, backend=backend)  # k + 1 states = k steps
            return res.seconds["run"]
        f()  # compiles
        return f
    return make


def _numpy(sampler, theta0=None):
    """make(m, k) for compare.measure: the same sampler on the numpy simulator (its wall time)."""
    def make(m, k):
        return lambda: run(sampler, m, k + 1, seed=1, theta0=theta0)
    return make


def _timed(workload, name, impl, make, chains, steps, args) -> c.Row:
    """Best of ``args.repeats`` of the workbench's own run seconds (compilation excluded)."""
    try:
        f = make(chains, steps)
        best = min(f() for _ in range(max(1, args.repeats)))
    except c.Unavailable as e:
        return c.Row(workload, name, impl, note=f"skipped: {e}")
    return c.Row(workload, name, impl, chains, steps, best)


def toy_rows(args, sizes, backend: JaxBackend) -> list[c.Row]:
    N, n = 1000, 10
    M, L = sizes["w12_chains"], sizes["w12_steps"]
    model = GaussianMeanModel.simulate_data(N, seed=0)
    h = 0.1 / model.A
    x = model.data[:, 0]
    rows = []
    for wl, replace in (("W1", False), ("W2", True)):
        if args.only and wl not in args.only:
            continue
        ours = sgld(model, h, n, replace=replace)
        rows.append(_timed(wl, "SGLD", "workbench jax", _workbench(ours, backend), M, L, args))
        rows.append(c.timed(wl, "SGLD", "workbench numpy", _numpy(ours), M, L, args))

        def bj(m, k, replace=replace):
            bjx = c._blackjax()
            jax, jnp = c._jax()
            grad_fn = bjx.sgmcmc.gradients.grad_estimator(lambda th: -0.5 * th**2,
                                                          lambda th, xi: -0.5 * (xi - th) ** 2, N)
            init, step = c.blackjax_sgld(grad_fn, jnp.asarray(x), n, h / 2, replace)
            return c.jax_many_chains(step, init, 0.0, m, k)

        rows.append(c.timed(wl, "SGLD", "blackjax", bj, M, L, args))
        if replace:
            def sj(m, k):
                _, jnp = c._jax()
                init, step = c.sgmcmcjax_chain("build_sgld_kernel", h / 2, lambda th, xi: -0.5 * (xi - th) ** 2,
                                               lambda th: -0.5 * th**2, (jnp.asarray(x),), n)
                return c.jax_many_chains(step, init, 0.0, m, k)

            rows.append(c.timed(wl, "SGLD", "sgmcmcjax", sj, M, L, args))
        else:
            rows.append(c.Row(wl, "SGLD", "sgmcmcjax", note="n/a: draws minibatches with replacement only"))
    return rows


def logistic_rows(args, sizes, backend: JaxBackend) -> list[c.Row]:
    if args.only and "W3" not in args.only:
        return []
    N, n = 10_000, 100
    M, L = sizes["w3_chains"], sizes["w3_steps"]
    model = c.w3_model()
    mode = model.posterior_mode()
    h = 0.5 / model.grad_lipschitz
    m_epoch = N // n
    Z = model._Z

    def logprior(b):
        return -0.5 * (b @ b) / model.sigma0**2

    def loglik(b, z):
        jax, _ = c._jax()
        return jax.nn.log_sigmoid(z @ b)

    ours = {"SGLD": lambda r: sgld(model, h, n, replace=r), "SGLD-CV": lambda r: sgld_cv(model, h, n, theta_hat=mode,
                                                                                            replace=r),
            "SVRG-LD": lambda r: Sampler(model, SVRG(n, m_epoch, replace=r), Langevin(), h, name="svrgld")}
    rows = []
    for name, build in ours.items():
        ours = build(False)
        rows.append(_timed("W3", name, "workbench jax", _workbench(ours, backend, mode), M, L, args))
        rows.append(c.timed("W3", name, "workbench numpy", _numpy(ours, mode), M, L, args))
        rows.append(_timed("W3", name, "workbench jax replace=True", _workbench(build(True), backend, mode), M, L,
                           args))

        def bj(m, k, name=name):
            bjx = c._blackjax()
            jax, jnp = c._jax()
            grad_fn = bjx.sgmcmc.gradients.grad_estimator(logprior, loglik, N)
            if name == "SGLD-CV":
                grad_fn = bjx.sgmcmc.gradients.control_variates(grad_fn, jnp.asarray(mode), jnp.asarray(Z))
            elif name != "SGLD":
                raise c.Unavailable(f"blackjax has no {name}")
            init, step = c.blackjax_sgld(grad_fn, jnp.asarray(Z), n, h / 2, replace=True)
            return c.jax_many_chains(step, init, mode, m, k)

        rows.append(c.timed("W3", name, "blackjax", bj, M, L, args))

        def sj(m, k, name=name):
            _, jnp = c._jax()
            data = (jnp.asarray(Z),)
            builder = {"SGLD": ("build_sgld_kernel",), "SGLD-CV": ("build_sgldCV_kernel", jnp.asarray(mode)),
                       "SVRG-LD": ("build_sgld_SVRG_kernel", m_epoch)}[name]
            if name == "SGLD-CV":
                init, step = c.sgmcmcjax_chain(builder[0], h / 2, loglik, logprior, data, n, builder[1])
            elif name == "SVRG-LD":
                init, step = c.sgmcmcjax_chain(builder[0], h / 2, loglik, logprior, data, n, builder[1])
            else:
                init, step = c.sgmcmcjax_chain(builder[0], h / 2, loglik, logprior, data, n)
            return c.jax_many_chains(step, init, mode, m, k)

        rows.append(c.timed("W3", name, "sgmcmcjax", sj, M, L, args))
    return rows


def figures(rows: list[c.Row]) -> list[str]:
    """``jax_figure`` lines: each workbench rate, its ratio to each peer's on the same row, and the issue's target."""
    rate = {(r.workload, r.sampler, r.impl): r.rate for r in rows if r.seconds == r.seconds}
    out = []
    for r in rows:
        if r.impl != "workbench jax" or r.seconds != r.seconds:
            continue
        key = f"{r.workload}_{r.sampler}"
        line = f"jax_figure {key} chain_steps_per_s={r.rate:.4g} chains={r.chains} steps={r.steps}"
        for peer in ("workbench numpy", "blackjax", "sgmcmcjax"):
            p = rate.get((r.workload, r.sampler, peer), math.nan)
            tag = peer.replace("workbench ", "")
            line += f" vs_{tag}={r.rate / p:.3g}" if p == p else f" vs_{tag}=n/a"
        target = TARGETS[r.workload]
        line += f" target={target:.3g} met={'yes' if r.rate >= target else 'no'}"
        out.append(line)
    return out


def main(args) -> int:
    c.X32 = args.jax_float32  # this module sees compare as an import, not as __main__
    jax, _ = c._jax()
    sizes = QUICK if args.quick else (CPU if jax.default_backend() == "cpu" else FULL)
    backend = JaxBackend(dtype="float32" if args.jax_float32 else "float64", keep_compiled=True)
    rows = toy_rows(args, sizes, backend) + logistic_rows(args, sizes, backend)
    text, _ = c.table(rows, "workbench jax")
    devices = ", ".join(sorted({d.device_kind for d in jax.devices()}))
    print(f"backend: jax {jax.__version__} on {jax.default_backend()} ({devices}); {os.cpu_count()} CPUs; sizes: "
          f"{sizes}" + (" (--quick)" if args.quick else ""))
    print(text)
    for line in figures(rows):
        print(line)
    for tag in ("numpy", "jax_peers"):
        ratios = [r for line in figures(rows) for r in _ratios(line, tag)]
        print(f"min_ratio_vs_{tag}={min(ratios) if ratios else float('nan'):.4g}")
    return 0


def _ratios(line: str, tag: str) -> list[float]:
    """The ratios of a ``jax_figure`` line against numpy (tag "numpy") or against the JAX peers ("jax_peers")."""
    out = []
    for part in line.split():
        name = part.split("=")[0]
        if not part.startswith("vs_") or part.endswith("n/a") or (name == "vs_numpy") != (tag == "numpy"):
            continue
        out.append(float(part.split("=")[1]))
    return [x for x in out if np.isfinite(x)]


if __name__ == "__main__":
    import sys

    sys.exit(c.main(["--backend", "jax", *sys.argv[1:]]))
