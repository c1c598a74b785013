"""How ``simulate.run`` scales with ``threads=``: chain-steps per second and the speed-up over one thread, measured
in one run, threads = 1, 2, 4, ... up to the CPU count.

Workloads (issue 26; ``benchmarks/compare.py`` has the same models):

* W1: 1-D Gaussian toy, SGLD, N = 1000, n = 10 WITHOUT replacement, M = 10^6 chains (block size 32768: 31 blocks);
* W2: the same WITH replacement;
* W3: Bayesian logistic regression, d = 20, N = 10^4, n = 100 (without replacement), M = 16384 chains in blocks of
  1024 (16 blocks), chains started at the posterior mode.

Each run streams the time averages of theta and theta^2 (the default test functions). The thread counts are
measured interleaved (1, 2, 4, ..., then again), ``--repeats`` times, so that a change in the machine's load
touches every count alike; each figure is the best of the repetitions and is printed with the 1-minute load
averages seen while it was measured. The speed-up is best(T) / best(1); the paired speed-up is the median over the
repetitions of (rate at T) / (rate at 1 in the same repetition). The CPU time per chain-step (the process's, all
threads, least over the repetitions) shows whether threads add work (contention, spinning): where it stays flat as
T grows, a speed-up below T is the machine's (other jobs, memory, clock), not the code's. Before each run a control
(independent multiply-adds split between T threads: no GIL, no memory, nothing shared) measures what the machine
itself gives at T threads at that moment: its paired speed-up is printed beside the workload's. ``--generic`` also
measures the generic step loop (``simulate.runtime.fused.ENABLED = False``: every step through the sampler's numpy
parts), i.e. the runner without its fused kernels. Targets: W2 and W3 at 16 threads >= 8x one thread on a machine
with 16 cores; 1 -> 2 threads >= 1.8x on a 2-core machine. A machine with fewer CPUs than a target needs prints
what is missing. Timings on a shared machine are noisy: compare the ratios within one run, on an idle machine.
Last line: ``scaling W1=<x> W2=<y> W3=<z> threads=<T>`` (speed-ups at the largest thread count T).

    python benchmarks/scaling.py [--only W2,W3] [--repeats R] [--steps L] [--max-threads T] [--generic] [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from dataclasses import dataclass, field

import numba
import numpy as np
from numba import njit

from simulate import GaussianMeanModel, run, sgld
from simulate.models.logistic import LogisticRegressionModel
from simulate.runtime import fused
from simulate.runtime.runner import cpu_count, tune_allocator

#: (chains, steps, block size) per workload; --quick divides chains and steps.
SIZES = {"W1": (1_000_000, 100, 32768), "W2": (1_000_000, 100, 32768), "W3": (16384, 100, 1024)}
#: The issue's targets: threads -> least speed-up over one thread, for W2 and W3.
TARGETS = {16: 8.0, 2: 1.8}


@dataclass
class Curve:
    """Rates (chain-steps per second) and load averages per thread count, one entry per repetition."""

    workload: str
    rates: dict[int, list[float]] = field(default_factory=dict)
    loads: dict[int, list[float]] = field(default_factory=dict)
    cpu_ns: dict[int, list[float]] = field(default_factory=dict)  # process CPU time per chain-step

    def best(self, t: int) -> float:
        return max(self.rates[t])

    def speedup(self, t: int) -> float:
        return self.best(t) / self.best(1)

    def paired(self, t: int) -> float:
        return statistics.median(a / b for a, b in zip(self.rates[t], self.rates[1], strict=True))


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo on Linux, else the platform's word for it)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def thread_counts(top: int) -> list[int]:
    """1, 2, 4, ... up to ``top``, and ``top`` itself."""
    out, t = [], 1
    while t < top:
        out.append(t)
        t *= 2
    return out + [top]


@njit(nogil=True, cache=True)
def _spin(count: int) -> float:
    """``count`` dependent multiply-adds: work for one core that touches no memory."""
    x = 0.0
    for _ in range(count):
        x = x * 0.999999 + 1.0
    return x


def control(threads: int, count: int) -> float:
    """Multiply-adds per second of ``count`` of them split between ``threads`` threads (the machine's own scaling:
    no GIL, no memory traffic, nothing shared)."""
    from concurrent.futures import ThreadPoolExecutor

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(_spin, [count // threads] * threads))
    return count / (time.perf_counter() - t0)


def workloads(quick: bool):
    """name -> (sampler, chains, steps, run keyword arguments)."""
    toy = GaussianMeanModel.simulate_data(1000, seed=0)
    beta = np.random.default_rng(7).normal(0.0, 0.5, 19)
    logistic = LogisticRegressionModel.paper_synthetic(10_000, beta_true=np.append(beta, 0.25), seed=7)
    samplers = {"W1": (sgld(toy, 0.1 / toy.A, 10, replace=False), {}),
                "W2": (sgld(toy, 0.1 / toy.A, 10, replace=True), {}),
                "W3": (sgld(logistic, 0.5 / logistic.grad_lipschitz, 100), dict(theta0=logistic.posterior_mode()))}
    out = {}
    for name, (sampler, kw) in samplers.items():
        M, L, block = SIZES[name]
        if quick:
            M, L = max(block * 2, M // 16), max(4, L // 20)
        out[name] = (sampler, M, L, dict(kw, block_size=block))
    return out


def measure(name: str, work, counts: list[int], repeats: int, spin: int) -> tuple[Curve, Curve]:
    """The rates of ``work`` at each thread count, interleaved over the repetitions, and those of the control
    (:func:`control`, ``spin`` multiply-adds) measured just before each."""
    sampler, M, L, kw = work
    for t in sorted({1, counts[-1]}):  # compile both kernel variants and warm the caches
        run(sampler, min(M, 4 * kw["block_size"]), 3, threads=t, **kw)
    curve, ideal = Curve(name), Curve("control")
    for _ in range(repeats):
        for t in counts:
            ideal.rates.setdefault(t, []).append(control(t, spin))
            ideal.loads.setdefault(t, []).append(os.getloadavg()[0])
            t0, c0 = time.perf_counter(), time.process_time()
            run(sampler, M, L + 1, threads=t, seed=1, **kw)  # L + 1 states = L steps
            curve.rates.setdefault(t, []).append(M * L / (time.perf_counter() - t0))
            curve.cpu_ns.setdefault(t, []).append((time.process_time() - c0) / (M * L) * 1e9)
            curve.loads.setdefault(t, []).append(os.getloadavg()[0])
    return curve, ideal


def report(curve: Curve, ideal: Curve, counts: list[int], label: str) -> None:
    print(f"{curve.workload} {label}")
    for t in counts:
        loads = ", ".join(f"{x:.1f}" for x in curve.loads[t])
        print(f"  threads={t:3d}  {curve.best(t) / 1e6:9.2f} M chain-steps/s  speed-up {curve.speedup(t):5.2f}x "
              f"(paired {curve.paired(t):5.2f}x; control {ideal.paired(t):5.2f}x)  CPU "
              f"{min(curve.cpu_ns[t]):7.1f} ns per chain-step  load averages {loads}")


def targets(curves: dict[str, Curve], cpus: int, work: dict, repeats: int) -> None:
    """The issue's targets: met, missed, or what a machine needs to measure them."""
    for t, least in sorted(TARGETS.items()):
        for name in ("W2", "W3"):
            if name not in curves:
                continue
            if t in curves[name].rates:
                s = curves[name].speedup(t)
                print(f"target {name} {t} threads >= {least}x: {s:.2f}x {'met' if s >= least else 'MISSED'}")
                continue
            _, M, L, _ = work[name]
            per_rep = M * L / curves[name].best(1) * sum(1 / c for c in thread_counts(t))
            print(f"target {name} {t} threads >= {least}x: not measurable here ({cpus} CPUs). It needs a machine "
                  f"with >= {t} idle cores (no other jobs; numba's threading layer omp or tbb, NUMBA_NUM_THREADS "
                  f"unset or >= {t}; < 1 GB of memory): `python benchmarks/scaling.py --only W2,W3`, about "
                  f"{per_rep * repeats:.0f} s for {name} at this machine's one-thread rate if it scales")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="W1,W2,W3", help="comma-separated workloads")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--steps", type=int, default=None, help="steps per run (default: per workload)")
    p.add_argument("--max-threads", type=int, default=None, help="largest thread count (default: the CPU count)")
    p.add_argument("--generic", action="store_true", help="also measure the generic step loop (no fused kernels)")
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke test, not a measurement)")
    args = p.parse_args()
    cpus = cpu_count()
    counts = thread_counts(args.max_threads or cpus)
    tune_allocator()
    print(f"CPU: {cpu_model()}, {cpus} CPUs for this process (os.cpu_count() {os.cpu_count()}); numba "
          f"{numba.__version__}, threading layer {numba.config.THREADING_LAYER}, NUMBA_NUM_THREADS "
          f"{numba.config.NUMBA_NUM_THREADS}; load average at start {os.getloadavg()[0]:.2f}")
    curves, works = {}, {}
    spin = 2_000_000 if args.quick else 200_000_000
    control(1, 1000)  # compile
    for name, work in workloads(args.quick).items():
        if name not in args.only.split(","):
            continue
        if args.steps:
            work = work[:2] + (args.steps,) + work[3:]
        works[name] = work
        print(f"{name}: M = {work[1]}, {work[2]} steps, block size {work[3]['block_size']}, best of {args.repeats}")
        curves[name], ideal = measure(name, work, counts, args.repeats, spin)
        report(curves[name], ideal, counts, "fused kernels" if fused.program_for(work[0], {}) else "generic loop")
        if args.generic:
            fused.ENABLED = False
            try:
                report(*measure(name, work, counts, args.repeats, spin), counts,
                       "generic step loop (fused kernels off)")
            finally:
                fused.ENABLED = True
    targets(curves, cpus, works, args.repeats)
    top = counts[-1]
    print("scaling " + " ".join(f"{k}={c.speedup(top):.3f}" for k, c in curves.items()) + f" threads={top}")


if __name__ == "__main__":
    main()
