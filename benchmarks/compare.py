"""Side-by-side throughput of this workbench and its peers on the same SG-MCMC workloads, in one process run.

Peers (installed by the ``bench`` extra; a peer that is missing is reported as skipped, never faked):

* blackjax: ``jax.jit(jax.vmap(chain))`` with ``chain`` a ``jax.lax.scan`` over ``blackjax.sgld(...).step``, the
  minibatch drawn per chain with ``jax.random.randint`` (with replacement) or ``jax.random.choice(replace=False)``;
* SGMCMCJax: its kernels (``build_sgld_kernel``, ``build_sgldCV_kernel``, ``build_sgld_SVRG_kernel``) under the
  same ``jit(vmap(scan))``; it draws minibatches with replacement only, so it has no without-replacement sampler.
  SGMCMCJax 0.2.13 imports ``jax.experimental.host_callback`` (for its progress bars), which jax >= 0.4.35 removed:
  a stub module is put in its place before the import (the kernels do not use it);
* numpy floor: a per-chain Python loop with numpy (``Generator.choice`` for the minibatch).

Workloads (step size convention theta' = theta + (h/2) g + sqrt(h) xi; peers get eps = h/2):

* W1: 1-D Gaussian toy, SGLD, N = 1000, n = 10 WITHOUT replacement, M = 10^5 chains, L = 10^3 steps. Also timed:
  drawing the same random numbers alone (the target is >= 0.5 of that rate).
* W2: the same WITH replacement.
* W3: Bayesian logistic regression, d = 20, N = 10^4, n = 100, M = 10^3 chains, chains started at the mode:
  SGLD, SGLD-CV, SVRG-LD (epoch m = N/n), SAGA-LD. The workbench draws minibatches without replacement (its
  default, exact); the peers draw with replacement (cheaper for them: their without-replacement draw permutes N).
  Rows "draw-ahead" time ``run(..., draw_ahead=True)`` (:mod:`simulate.runtime.pipeline`: each step's random
  numbers drawn ahead in a second thread, which also helps with the gradient); the default runs one thread of steps.
* W4: exact finite-L MSE of the time average of theta^2 under SGLD (``theory.toy.finite_time``), L = 10^3..10^7.

A slow implementation is measured on fewer chains/steps (a probe run predicts the cost; each measurement is kept
under ``--budget`` seconds; the workbench's W1/W2 rows always run the full size); the table prints the M and L
actually run. W3 also times the workbench's SGLD with replacement (the peers' scheme) and SGLD, SGLD-CV drawing
ahead (neither in the minimum).
Rates are chain-steps per second, best of ``--repeats``; jit compilation is excluded (compiled ahead with
``.lower().compile()``). JAX uses every core XLA sees (one trial on 2 busy cores: blackjax W3 SGLD ran at
0.15 M/s with XLA forced to one thread, 0.15-0.17 M/s with its default); the workbench's logistic kernels run on
numba's threads (all cores) and its random numbers in one stream per chain block.
Timings on a shared machine are noisy: compare the ratios within one run.
Last line: ``min_ratio_vs_blackjax=<r>`` (minimum over W1-W3 rows where blackjax has the sampler).

    python benchmarks/compare.py [--quick] [--budget S] [--repeats R] [--only W1,W2,...] [--backend jax]

``--backend jax`` runs the workbench's JAX backend and the JAX peers on the same device instead
(benchmarks/compare_jax.py).
"""

from __future__ import annotations

import argparse
import importlib
import math
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import rng_only  # noqa: E402

from simulate import GaussianMeanModel, run, sgld  # noqa: E402
from simulate.models.logistic import LogisticRegressionModel  # noqa: E402
from simulate.runtime.runner import DEFAULT_BLOCK_SIZE, tune_allocator  # noqa: E402
from simulate.validation import ParameterError  # noqa: E402

# ----------------------------------------------------------------------------------------------------- sizes

FULL = dict(w12_chains=100_000, w12_steps=1_000, w3_chains=1_000, w3_steps=200)
QUICK = dict(w12_chains=10_000, w12_steps=100, w3_chains=200, w3_steps=20)
W4_LS = (10**3, 10**4, 10**5, 10**6, 10**7)


@dataclass
class Row:
    workload: str
    sampler: str
    impl: str
    chains: int = 0
    steps: int = 0
    seconds: float = math.nan
    note: str = ""

    @property
    def rate(self) -> float:
        return self.chains * self.steps / self.seconds if self.seconds == self.seconds else math.nan


X32 = False  # --jax-float32: run the JAX peers in float32 (JAX's default; the workbench is float64)


class Unavailable(Exception):
    """A peer (or a sampler of a peer) is not installed or does not exist: reported, never faked."""


# ----------------------------------------------------------------------------------------------------- timing


def measure(make: Callable[[int, int], Callable[[], None]], chains: int, steps: int, budget: float,
            repeats: int, per_chain_loop: bool = False, scale: bool = True) -> tuple[int, int, float]:
    """Best-of-``repeats`` seconds for ``make(m, k)()`` with (m, k) <= (chains, steps) chosen to fit ``budget``.

    ``make(m, k)`` prepares (compiles) a run of m chains x k steps and returns a callable that runs it.
    A probe run on few chains/steps predicts the rate; the sizes are scaled down (steps first, then chains)
    until the predicted time of one run is under ``budget``. ``scale=False``: always the full sizes.
    """
    m, k = chains, steps
    if not scale:
        f = make(m, k)
        best = math.inf
        for _ in range(repeats):
            t0 = time.perf_counter()
            f()
            best = min(best, time.perf_counter() - t0)
        return m, k, best
    pm, pl = min(chains, 8 if per_chain_loop else 8192), min(steps, 5 if per_chain_loop else 3)
    f = make(pm, pl)
    f()
    t0 = time.perf_counter()
    f()
    rate = pm * pl / max(time.perf_counter() - t0, 1e-9)
    if m * k / rate > budget and per_chain_loop:  # the rate of a loop over chains does not depend on M
        m = max(min(chains, 4), int(budget * rate / k))
    if m * k / rate > budget:
        k = max(min(steps, 2), min(steps, int(budget * rate / m)))
    if m * k / rate > budget:
        m = max(min(chains, 64), int(budget * rate / k))
    if (m, k) == (pm, pl):
        best = pm * pl / rate
    else:
        f = make(m, k)
        best = math.inf
    for _ in range(repeats if (m, k) == (chains, steps) else 1):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return m, k, best


def timed(workload: str, sampler: str, impl: str, make, chains, steps, args, **kw) -> Row:
    try:
        m, k, s = measure(make, chains, steps, args.budget, args.repeats, **kw)
    except Unavailable as e:
        return Row(workload, sampler, impl, note=f"skipped: {e}")
    except ParameterError as e:  # e.g. SAGA's gradient table does not fit in memory
        return Row(workload, sampler, impl, note=f"skipped: {str(e)[:160]}")
    note = "" if (m, k) == (chains, steps) else f"scaled down from M={chains}, L={steps} (budget {args.budget:g} s)"
    return Row(workload, sampler, impl, m, k, s, note)


# ----------------------------------------------------------------------------------------------------- peers


def _jax():
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:
        raise Unavailable("jax not installed (pip install -e .[bench])") from e
    jax.config.update("jax_enable_x64", not X32)  # float64 like the workbench unless --jax-float32
    return jax, jnp


def _blackjax():
    _jax()
    try:
        return importlib.import_module("blackjax")
    except ImportError as e:
        raise Unavailable("blackjax not installed (pip install -e .[bench])") from e


def _sgmcmcjax_kernels():
    _jax()
    try:
        importlib.import_module("jax.experimental.host_callback")
    except ImportError:
        import jax.experimental

        stub = types.ModuleType("jax.experimental.host_callback")  # removed in jax 0.4.35; used only for tqdm bars
        sys.modules["jax.experimental.host_callback"] = stub
        jax.experimental.host_callback = stub
    try:
        return importlib.import_module("sgmcmcjax.kernels")
    except ImportError as e:
        raise Unavailable(f"sgmcmcjax not importable ({e}) (pip install -e .[bench])") from e


def jax_many_chains(step: Callable, init: Callable, theta0, chains: int, steps: int, seed: int = 0):
    """Compile jit(vmap(scan)) of ``steps`` steps of ``chains`` chains; return a callable that runs it.

    ``init(key, theta0) -> state``, ``step(i, key, state) -> state`` for one chain.
    """
    jax, jnp = _jax()

    def chain(key, th0):
        k0, k1 = jax.random.split(key)
        state = init(k0, th0)

        def body(st, xs):
            i, k = xs
            return step(i, k, st), None

        state, _ = jax.lax.scan(body, state, (jnp.arange(steps), jax.random.split(k1, steps)))
        return state

    keys = jax.random.split(jax.random.key(seed), chains)
    th0 = jnp.broadcast_to(jnp.asarray(theta0, dtype=jnp.float64), (chains, *np.shape(theta0)))
    compiled = jax.jit(jax.vmap(chain)).lower(keys, th0).compile()
    return lambda: jax.block_until_ready(compiled(keys, th0))


def blackjax_sgld(grad_fn: Callable, data, n: int, eps: float, replace: bool) -> tuple[Callable, Callable]:
    """(init, step) of one blackjax SGLD chain, minibatch of n rows of ``data`` drawn per step."""
    bj = _blackjax()
    jax, _ = _jax()
    kernel = bj.sgld(grad_fn)
    N = data.shape[0]

    def step(i, key, th):
        k1, k2 = jax.random.split(key)
        if replace:
            idx = jax.random.randint(k1, (n,), 0, N)
        else:
            idx = jax.random.choice(k1, N, (n,), replace=False)
        return kernel.step(k2, th, data[idx], eps)

    return (lambda key, th: th), step


def sgmcmcjax_chain(builder: str, *args) -> tuple[Callable, Callable]:
    """(init, step) of one SGMCMCJax chain from ``sgmcmcjax.kernels.<builder>(*args)``."""
    k = _sgmcmcjax_kernels()
    init_fn, kernel, _ = getattr(k, builder)(*args)
    return init_fn, kernel


# ----------------------------------------------------------------------------------------------------- W1, W2


def numpy_loop_toy(x: np.ndarray, n: int, h: float, replace: bool):
    """The floor: a Python loop over chains and steps, numpy per step."""
    N = x.shape[0]

    def make(m, k):
        def f():
            rng = np.random.default_rng(0)
            for _ in range(m):
                th = 0.0
                for _ in range(k):
                    idx = rng.choice(N, n, replace=replace)
                    g = -th + (N / n) * (x[idx].sum() - n * th)
                    th += 0.5 * h * g + math.sqrt(h) * rng.standard_normal()
        return f

    return make


def workloads_toy(args, sizes) -> list[Row]:
    N, n = 1000, 10
    M, L = sizes["w12_chains"], sizes["w12_steps"]
    model = GaussianMeanModel.simulate_data(N, seed=0)
    h = 0.1 / model.A
    x = model.data[:, 0]
    rows = []
    for wl, replace in (("W1", False), ("W2", True)):
        if args.only and wl not in args.only:
            continue
        sampler = sgld(model, h, n, replace=replace)
        ours = lambda m, k, s=sampler: lambda: run(s, m, k + 1, seed=1)  # noqa: E731  (k + 1 states = k steps)
        rows.append(timed(wl, "SGLD", "workbench", ours, M, L, args, scale=False))
        if not replace:
            mk = lambda m, k: lambda: rng_only(N, n, m, k, DEFAULT_BLOCK_SIZE, 1)  # noqa: E731
            rows.append(timed(wl, "SGLD", "rng only (same draws)", mk, M, L, args, scale=False))

        def bj(m, k, replace=replace):
            bjx = _blackjax()
            jax, jnp = _jax()
            grad_fn = bjx.sgmcmc.gradients.grad_estimator(lambda th: -0.5 * th**2,
                                                          lambda th, xi: -0.5 * (xi - th) ** 2, N)
            init, step = blackjax_sgld(grad_fn, jnp.asarray(x), n, h / 2, replace)
            return jax_many_chains(step, init, 0.0, m, k)

        rows.append(timed(wl, "SGLD", "blackjax", bj, M, L, args))
        if replace:
            def sj(m, k):
                _, jnp = _jax()
                init, step = sgmcmcjax_chain("build_sgld_kernel", h / 2, lambda th, xi: -0.5 * (xi - th) ** 2,
                                             lambda th: -0.5 * th**2, (jnp.asarray(x),), n)
                return jax_many_chains(step, init, 0.0, m, k)

            rows.append(timed(wl, "SGLD", "sgmcmcjax", sj, M, L, args))
        else:
            rows.append(Row(wl, "SGLD", "sgmcmcjax", note="n/a: draws minibatches with replacement only"))
        rows.append(timed(wl, "SGLD", "numpy per-chain loop", numpy_loop_toy(x, n, h, replace), M, L, args,
                          per_chain_loop=True))
    return rows


# ----------------------------------------------------------------------------------------------------- W3


def _workbench_w3(name: str, model, h: float, n: int, m_epoch: int, mode: np.ndarray):
    """The workbench sampler for a W3 row, imported lazily (SGLD-CV and SAGA-LD are built in parallel)."""
    if name == "SGLD":
        return sgld(model, h, n)
    if name == "SVRG-LD":
        from simulate.samplers import svrgld

        return svrgld(model, h, n, m_epoch)
    mod, factory = {"SGLD-CV": ("simulate.samplers", "sgld_cv"), "SAGA-LD": ("simulate.samplers", "saga_ld")}[name]
    try:
        f = getattr(importlib.import_module(mod), factory)
    except (ImportError, AttributeError) as e:
        raise Unavailable(f"not available yet ({mod}.{factory}: {e})") from e
    if name == "SGLD-CV":
        return f(model, h, n, theta_hat=mode)
    return f(model, h, n)


def w3_model(d: int = 20, N: int = 10_000) -> LogisticRegressionModel:
    """W3's data: the paper's synthetic design with fixed label-generating coefficients."""
    beta = np.random.default_rng(7).normal(0.0, 0.5, d - 1)
    return LogisticRegressionModel.paper_synthetic(N, beta_true=np.append(beta, 0.25), seed=7)


def workload_logistic(args, sizes) -> list[Row]:
    if args.only and "W3" not in args.only:
        return []
    N, n = 10_000, 100
    M, L = sizes["w3_chains"], sizes["w3_steps"]
    model = w3_model()
    mode = model.posterior_mode()
    h = 0.5 / model.grad_lipschitz
    m_epoch = N // n
    Z = model._Z
    rows = []

    def logprior(b):
        return -0.5 * (b @ b) / model.sigma0**2

    def loglik(b, z):
        jax, _ = _jax()
        return jax.nn.log_sigmoid(z @ b)

    for name in ("SGLD", "SGLD-CV", "SVRG-LD", "SAGA-LD"):
        def ours(m, k, name=name):
            s = _workbench_w3(name, model, h, n, m_epoch, mode)
            return lambda: run(s, m, k + 1, seed=1, theta0=mode)

        rows.append(timed("W3", name, "workbench", ours, M, L, args))
        if name == "SGLD":  # the peers' scheme, for a like-for-like comparison (not in the minimum ratio)
            wr = lambda m, k: lambda: run(sgld(model, h, n, replace=True), m, k + 1, seed=1, theta0=mode)  # noqa: E731
            rows.append(timed("W3", name, "workbench replace=True", wr, M, L, args))
        if name in ("SGLD", "SGLD-CV"):  # run(..., draw_ahead=True): what drawing ahead adds (not in the minimum)
            def ahead(m, k, name=name):
                s = _workbench_w3(name, model, h, n, m_epoch, mode)
                return lambda: run(s, m, k + 1, seed=1, theta0=mode, draw_ahead=True)

            rows.append(timed("W3", name, "workbench draw-ahead", ahead, M, L, args))

        def bj(m, k, name=name):
            bjx = _blackjax()
            jax, jnp = _jax()
            grad_fn = bjx.sgmcmc.gradients.grad_estimator(logprior, loglik, N)
            if name == "SGLD-CV":
                grad_fn = bjx.sgmcmc.gradients.control_variates(grad_fn, jnp.asarray(mode), jnp.asarray(Z))
            elif name != "SGLD":
                raise Unavailable(f"blackjax has no {name}")
            init, step = blackjax_sgld(grad_fn, jnp.asarray(Z), n, h / 2, replace=True)
            return jax_many_chains(step, init, mode, m, k)

        rows.append(timed("W3", name, "blackjax", bj, M, L, args))

        def sj(m, k, name=name):
            _, jnp = _jax()
            data = (jnp.asarray(Z),)
            if name == "SGLD":
                init, step = sgmcmcjax_chain("build_sgld_kernel", h / 2, loglik, logprior, data, n)
            elif name == "SGLD-CV":
                init, step = sgmcmcjax_chain("build_sgldCV_kernel", h / 2, loglik, logprior, data, n,
                                             jnp.asarray(mode))
            elif name == "SVRG-LD":
                init, step = sgmcmcjax_chain("build_sgld_SVRG_kernel", h / 2, loglik, logprior, data, n, m_epoch)
            else:
                raise Unavailable(f"sgmcmcjax has no {name}")
            return jax_many_chains(step, init, mode, m, k)

        rows.append(timed("W3", name, "sgmcmcjax", sj, M, L, args))
    return rows


# ----------------------------------------------------------------------------------------------------- W4


def workload_exact(args) -> list[Row]:
    if args.only and "W4" not in args.only:
        return []
    from theory.toy.finite_time import from_sampler

    model = GaussianMeanModel.simulate_data(1000, seed=0)
    theory = from_sampler(sgld(model, 0.1 / model.A, 10))
    t0 = time.perf_counter()
    theory.mse2(10)  # the one-off sympy derivation (cached per process)
    setup = time.perf_counter() - t0
    rows = []
    for L in W4_LS:
        best = math.inf
        for _ in range(max(3, args.repeats)):
            t0 = time.perf_counter()
            v = theory.mse2(L)
            best = min(best, time.perf_counter() - t0)
        rows.append(Row("W4", "exact MSE2(L)", "workbench (closed form)", 1, L, best,
                        f"MSE2 = {float(v):.6g}" + (f"; one-off derivation {setup:.2f} s" if L == W4_LS[0] else "")))
    return rows


# ----------------------------------------------------------------------------------------------------- report


def table(rows: list[Row], ours_impl: str = "workbench") -> tuple[str, float]:
    """The printed table and min over W1-W3 of (workbench rate) / (blackjax rate) where blackjax ran; ``ours_impl``
    names the workbench's rows (the ratio column divides their rate by each row's)."""
    ours = {(r.workload, r.sampler): r.rate for r in rows if r.impl == ours_impl and r.seconds == r.seconds}
    bj = {(r.workload, r.sampler): r.rate for r in rows if r.impl == "blackjax" and r.seconds == r.seconds}
    rng = {r.workload: r.rate for r in rows if r.impl.startswith("rng only")}
    lines = [f"{'workload':8s} {'sampler':14s} {'implementation':24s} {'M':>7s} {'L':>9s} {'seconds':>9s} "
             f"{'M steps/s':>10s} {'ours/this':>9s}  note"]
    for r in rows:
        if r.workload == "W4":
            lines.append(f"{r.workload:8s} {r.sampler:14s} {r.impl:24s} {'':>7s} {r.steps:>9d} "
                         f"{r.seconds * 1e3:>7.2f}ms {'':>10s} {'':>9s}  {r.note}")
            continue
        key = (r.workload, r.sampler)
        if r.seconds != r.seconds:
            lines.append(f"{r.workload:8s} {r.sampler:14s} {r.impl:24s} {'-':>7s} {'-':>9s} {'-':>9s} {'-':>10s} "
                         f"{'-':>9s}  {r.note}")
            continue
        ratio = ours[key] / r.rate if key in ours and r.impl != ours_impl else math.nan
        note = r.note
        if r.impl == "workbench" and r.workload in rng:
            note = (note + "; " if note else "") + f"rng_only_fraction={r.rate / rng[r.workload]:.3f}"
        lines.append(f"{r.workload:8s} {r.sampler:14s} {r.impl:24s} {r.chains:>7d} {r.steps:>9d} {r.seconds:>9.3f} "
                     f"{r.rate / 1e6:>10.4g} {ratio:>9.3g}  {note}")
    ratios = [ours[k] / bj[k] for k in bj if k in ours]
    return "\n".join(lines), (min(ratios) if ratios else math.nan)


def w3_breakdown(args, sizes) -> str:
    """Where a W3 SGLD step's time goes (ms per step of M chains, best of ``--repeats`` x 20 calls): the exact
    without-replacement index draw, the with-replacement draw, the fused gradient kernel (numba's threads, and one
    thread), the injected noise (the workbench's numba draw of numpy's numbers)."""
    import numba

    from simulate._fast.draws import standard_normal
    from simulate.estimators.subsample import with_replacement, without_replacement

    d, N, n, M = 20, 10_000, 100, sizes["w3_chains"]
    model = w3_model()
    rng = np.random.default_rng(0)
    theta = np.tile(model.posterior_mode(), (M, 1))
    idx = without_replacement(rng, N, n, M)

    def ms(f) -> float:
        t_end = time.perf_counter() + 0.2  # warm up (numba's worker threads, caches, the CPU clock) for 0.2 s
        while time.perf_counter() < t_end:
            f()
        best = math.inf
        for _ in range(max(1, args.repeats)):
            t0 = time.perf_counter()
            for _ in range(20):
                f()
            best = min(best, (time.perf_counter() - t0) / 20)
        return best * 1e3

    parts = dict(draw_without=ms(lambda: without_replacement(rng, N, n, M)),
                 draw_with=ms(lambda: with_replacement(rng, N, n, M)),
                 gradient_kernel=ms(lambda: model.grad_log_lik_sum(theta, idx)))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        parts["gradient_kernel_1thread"] = ms(lambda: model.grad_log_lik_sum(theta, idx))
    finally:
        numba.set_num_threads(threads)
    parts["noise"] = ms(lambda: standard_normal(rng, (M, d)))
    return f"W3 SGLD step parts (ms per step, M = {M}): " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="small M and L (smoke test)")
    p.add_argument("--budget", type=float, default=None, help="seconds per measurement (default 20, quick 2)")
    p.add_argument("--repeats", type=int, default=None, help="best of R runs (default 3, quick 1)")
    p.add_argument("--only", type=lambda s: set(s.upper().split(",")), default=None,
                   help="comma-separated workloads, e.g. W1,W4")
    p.add_argument("--jax-float32", action="store_true", help="JAX peers in float32 (default: float64 as ours)")
    p.add_argument("--backend", choices=("numpy", "jax"), default="numpy",
                   help="the workbench's backend: numpy (W1-W4 against the peers, this table) or jax (W1-W3 on the "
                        "device JAX sees, against the JAX peers on the same device: benchmarks/compare_jax.py)")
    args = p.parse_args(argv)
    global X32
    X32 = args.jax_float32
    args.budget = args.budget if args.budget is not None else (2.0 if args.quick else 20.0)
    args.repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    if args.backend == "jax":
        import compare_jax

        X32 = args.jax_float32
        return compare_jax.main(args)
    sizes = QUICK if args.quick else FULL
    tune_allocator()
    # measured first, before JAX has started its thread pool in this process
    breakdown = w3_breakdown(args, sizes) if not args.only or "W3" in args.only else None
    rows = workloads_toy(args, sizes) + workload_logistic(args, sizes) + workload_exact(args)
    text, r = table(rows)
    print(f"sizes: {sizes} (--quick)" if args.quick else f"sizes: {sizes}")
    print(text)
    if breakdown:
        print(breakdown)
    print(f"min_ratio_vs_blackjax={r:.4g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
