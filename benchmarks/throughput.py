"""SGLD throughput on the 1-D Gaussian toy against the cost of drawing its random numbers alone.

Workload (issue: foundation): N = 1000, n = 10 without replacement, M = 10^5 chains, streaming time averages
of theta and theta^2. The baseline, measured in the same run with the same generators, block size and block
threads, draws per step exactly the sampler's random numbers (n indices and one normal per chain) and does
nothing else.
Last line: ``chain_steps_per_s=<x> rng_only_fraction=<y>`` with y = (sampler rate) / (RNG-only rate).

    python benchmarks/throughput.py [--chains M] [--steps L] [--repeats R] [--threads T]
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from simulate import GaussianMeanModel, run, sgld
from simulate.estimators.subsample import draw_dtype
from simulate.runtime.blocks import block_rng
from simulate.runtime.runner import DEFAULT_BLOCK_SIZE, tune_allocator


def rng_only(n_data: int, n: int, chains: int, steps: int, block_size: int, seed: int,
             threads: int | None = None) -> float:
    """Seconds to draw, block by block, the indices (n, m) and normals (m, 1) of every step, with blocks in
    ``threads`` threads as :func:`simulate.run` does (default: one per CPU)."""
    threads = threads or os.cpu_count() or 1

    def block(b: int) -> None:
        m = min(chains, (b + 1) * block_size) - b * block_size
        rng = block_rng(seed, b)
        for _ in range(steps):
            rng.integers(0, n_data, size=(n, m), dtype=draw_dtype(n_data))
            rng.standard_normal((m, 1))

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(block, range(-(-chains // block_size))))
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--chains", type=int, default=100_000)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=None, help="block threads for both (default: one per CPU)")
    args = p.parse_args()
    N, n = 1000, 10
    model = GaussianMeanModel.simulate_data(N, seed=0)
    sampler = sgld(model, 0.1 / model.A, n, replace=False)
    tune_allocator()  # the baseline gets the same allocator settings as the sampler
    work = args.chains * args.steps
    best_s = best_r = np.inf
    for rep in range(args.repeats):
        t0 = time.perf_counter()
        run(sampler, args.chains, args.steps + 1, seed=rep, threads=args.threads)  # steps + 1 states
        best_s = min(best_s, time.perf_counter() - t0)
        best_r = min(best_r, rng_only(N, n, args.chains, args.steps, DEFAULT_BLOCK_SIZE, rep, args.threads))
    rate, rate_rng = work / best_s, work / best_r
    print(f"workload: SGLD 1-D toy, N={N}, n={n} without replacement, M={args.chains}, {args.steps} steps, "
          f"block size {DEFAULT_BLOCK_SIZE}, block threads {args.threads or os.cpu_count()}, best of {args.repeats}")
    print(f"sampler : {best_s:8.3f} s  {rate / 1e6:8.2f} M chain-steps/s (with time averages of theta, theta^2)")
    print(f"rng only: {best_r:8.3f} s  {rate_rng / 1e6:8.2f} M chain-steps/s (same draws, nothing else)")
    print(f"chain_steps_per_s={rate:.4g} rng_only_fraction={rate / rate_rng:.3f}")


if __name__ == "__main__":
    main()
