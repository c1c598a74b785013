"""Chain blocks and claims on Dask distributed workers: bit-identical to the single-process run."""

from __future__ import annotations

import pytest
from _results import assert_runs_identical

import simulate.runtime.blocks
from simulate import GaussianMeanModel, ParameterError, run, sgld
from simulate.runtime.distributed import client, get_default_client, run_distributed, run_many, using
from verify.harness import run_claims
from verify.registry import Settings, select

pytest.importorskip("distributed")

M, BLOCK, STEPS = 1000, 300, 25  # 4 blocks: 300, 300, 300, 100


@pytest.fixture(scope="module")
def dask_client():
    with client(workers=2) as c:
        yield c


@pytest.fixture(scope="module")
def sampler():
    return sgld(GaussianMeanModel.simulate_data(80, theta_true=0.4, seed=5), 0.01, 7)


def _theta0(rng, m):
    return rng.normal(0.0, 1.0, size=(m, 1))


KW = dict(seed=11, burn_in=4, record_at=[0, 9], trace_stride=6, block_size=BLOCK, theta0=_theta0)


@pytest.mark.parametrize("blocks_per_task", [1, 3])
def test_run_distributed_bit_identical(dask_client, sampler, blocks_per_task):
    ref = run(sampler, M, STEPS, **KW)
    got = run_distributed(sampler, M, STEPS, client=dask_client, blocks_per_task=blocks_per_task, **KW)
    assert_runs_identical(got, ref)


def test_default_client_dispatches_run(dask_client, sampler):
    ref = run(sampler, M, STEPS, **KW)
    assert get_default_client() is None
    with using(dask_client):
        assert get_default_client() is dask_client
        got = run(sampler, M, STEPS, **KW)
        single_block = run(sampler, 200, STEPS, seed=3)  # one block: runs here, no dispatch
    assert get_default_client() is None
    assert_runs_identical(got, ref)
    assert_runs_identical(single_block, run(sampler, 200, STEPS, seed=3))


def test_run_many_sweep_bit_identical(dask_client, sampler):
    """A small (h, n) sweep as one pool of block tasks: each run equals its single-process run."""
    model = sampler.model
    specs = [(sgld(model, h, n), M, 12, dict(seed=s, block_size=BLOCK))
             for s, (h, n) in enumerate([(0.01, 3), (0.005, 7), (0.02, 30)])]
    got = run_many(specs, client=dask_client, blocks_per_task=2)
    for (smp, m, k, kw), res in zip(specs, got, strict=True):
        assert_runs_identical(res, run(smp, m, k, **kw))
    with pytest.raises(ParameterError, match="runs\\[0\\]"):
        run_many([(sampler, M)], client=dask_client)


def test_run_distributed_needs_a_client(sampler):
    with pytest.raises(ParameterError, match="client"):
        run_distributed(sampler, M, STEPS, **KW)
    with pytest.raises(ParameterError, match="blocks"):
        run_distributed(sampler, M, STEPS, client=object(), blocks=[0])


@pytest.mark.slow
def test_claims_on_two_workers_bit_identical(dask_client):
    """verify --workers: the same claims on 2 Dask workers give exactly the numbers of a single-process run."""
    ids = ["vollmer.eq17.stationary_mean", "chen.alg1.vr_estimator_moments"]
    claims = select(None, ids)
    base = Settings(chains=400, seed=3)
    one = run_claims(claims, base)
    addr = dask_client.scheduler.address
    two = run_claims(claims, Settings(chains=400, seed=3, workers=2, scheduler=addr))
    assert [c.id for c, _ in one] == [c.id for c, _ in two] == [c.id for c in claims]
    for (_, a), (_, b) in zip(one, two, strict=True):
        assert [(k.label, k.theory, k.estimate, k.se, k.rejected) for k in a.checks] == [
            (k.label, k.theory, k.estimate, k.se, k.rejected) for k in b.checks]
        assert [(e.label, e.passed) for e in a.exact] == [(e.label, e.passed) for e in b.exact]
        assert a.checks  # statistical checks were compared


def test_memory_check_names_n_chains(monkeypatch, sampler):
    monkeypatch.setattr(simulate.runtime.blocks, "available_memory", lambda: 50 * 2**20)  # 50 MiB
    with pytest.raises(ParameterError, match=r"n_chains = 10000000 .* n_chains must be <= \d+"):
        run(sampler, 10_000_000, 10)
    with pytest.raises(ParameterError, match="trace"):
        run(sampler, 100_000, 1000, trace_stride=1)
    run(sampler, 1000, 5)  # small runs still fit
