"""The outputs that the README promises to be the same bits on every CPU, and their stored reference.

Every path listed here avoids BLAS/LAPACK, fast-math and numpy's CPU-dispatched transcendental functions: the random
draws (indices, normals), the logistic vector kernels, the Gaussian and linear-regression gradients, the fixed-order
linear algebra of the model constants (:mod:`simulate._linalg`), and short seeded runs of every sampler built on them.
Paths that do not promise bits (LAPACK-based theory values, reference samplers, numpy transcendentals) are NOT here.

``python -m tests.bits`` compares the outputs of this process with ``tests/data/bits_reference.npz`` and prints the
mismatches (exit code 1 if any); tests/test_bits.py runs it under several numba, OpenBLAS and numpy targets.
``python -m tests.bits --write`` rewrites the reference: only when the arithmetic changes on purpose (say so in the
commit message).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).parent / "data" / "bits_reference.npz"


def _draws(out: dict) -> None:
    from simulate._fast import draws as _draws
    from simulate.estimators.subsample import sample_indices

    for N, n, M in ((1000, 10, 257), (50, 13, 40), (40_000, 100, 33), (1000, 64, 20), (300, 300, 3)):
        for replace in (False, True):
            rng = np.random.default_rng(N * 7 + n)
            out[f"idx_{N}_{n}_{int(replace)}"] = sample_indices(rng, N, n, M, replace)
            out[f"idx_{N}_{n}_{int(replace)}_next"] = rng.integers(0, 2**62, 4)
    rng = np.random.default_rng(5)
    out["normals"] = _draws.standard_normal(rng, (200_000, 3))  # about 160 draws from the ziggurat's tail
    out["normals_next"] = rng.integers(0, 2**62, 4)


def _logistic_kernels(out: dict) -> None:
    from simulate.models.logistic import LogisticRegressionModel

    for d, N, n, M in ((3, 200, 7, 37), (20, 1000, 100, 16), (9, 50, 13, 9), (24, 300, 16, 17), (17, 500, 1, 5)):
        rng = np.random.default_rng(d * 1000 + n)
        X = rng.standard_normal((N, d))
        y = np.where(rng.random(N) < 0.5, -1.0, 1.0)
        m = LogisticRegressionModel(X, y)
        theta, hat = rng.normal(0, 0.7, (M, d)), rng.normal(0, 0.7, (M, d))
        idx = rng.integers(0, N, (n, M))
        out[f"logistic_sum_{d}"] = m.grad_log_lik_sum(theta, idx)
        out[f"logistic_diff_{d}"] = m.grad_log_lik_diff_sum(theta, hat, idx)
        out[f"logistic_diff_anchor_{d}"] = m.grad_log_lik_diff_sum(theta, hat[0], idx)
        out[f"logistic_per_datum_{d}"] = m.grad_log_lik(theta[:3], idx[:, :3])
        out[f"logistic_full_{d}"] = m.grad_log_lik_full(theta[:2])
        out[f"logistic_lipschitz_{d}"] = np.array(m.grad_lipschitz)


def _models():
    from simulate import GaussianMeanModel, LinearRegressionModel, LogisticRegressionModel

    return {
        "toy": GaussianMeanModel.simulate_data(200, theta_true=1.0, seed=1),
        "gauss3": GaussianMeanModel.simulate_data(150, theta_true=(1.0, -1.0, 0.5), dim=3, seed=2),
        "linreg": LinearRegressionModel.simulate_data(120, dim=3, seed=3),
        "logistic": LogisticRegressionModel.paper_synthetic(n_data=150, seed=4),
    }


def _model_paths(out: dict) -> None:
    rng = np.random.default_rng(9)
    for name, m in _models().items():
        theta = rng.normal(0, 0.5, (11, m.dim))
        idx = rng.integers(0, m.n_data, (9, 11))
        out[f"{name}_sum"] = m.grad_log_lik_sum(theta, idx)
        out[f"{name}_full"] = m.grad_log_lik_full(theta)
        out[f"{name}_lipschitz"] = np.array(m.grad_lipschitz)
        if name != "logistic":
            out[f"{name}_per_datum_cov"] = np.asarray(m.per_datum_grad_cov(theta))
    lin = _models()["linreg"]
    out["linreg_posterior_mean"] = lin.posterior_mean
    out["linreg_posterior_cov"] = lin.posterior_cov


def _samplers() -> dict[str, Callable]:
    """Name -> builder of a sampler on one of :func:`_models` (every estimator and integrator that promises bits)."""
    from simulate import (
        Strata,
        cp_sghmc,
        cp_sgld,
        euler,
        msgld,
        saga_ld,
        sghmc,
        sgld,
        sgld_cv,
        svrgld,
        vrsgld,
    )

    ms = _models()
    toy, g3, lin, logi = ms["toy"], ms["gauss3"], ms["linreg"], ms["logistic"]
    strata = Strata.from_labels(np.arange(lin.n_data) % 3)
    return {
        "sgld_toy": lambda: sgld(toy, 0.5 / toy.grad_lipschitz, 10),
        "sgld_toy_wr": lambda: sgld(toy, 0.5 / toy.grad_lipschitz, 10, replace=True),
        "msgld_toy": lambda: msgld(toy, 0.5 / toy.grad_lipschitz, 10),
        "msgld_gauss3": lambda: msgld(g3, 0.5 / g3.grad_lipschitz, 7),
        "msgld_linreg": lambda: msgld(lin, 0.3 / lin.grad_lipschitz, 12),
        "euler_linreg": lambda: euler(lin, 0.5 / lin.grad_lipschitz),
        "sgld_linreg": lambda: sgld(lin, 0.5 / lin.grad_lipschitz, 12),
        "sgld_cv_linreg": lambda: sgld_cv(lin, 0.5 / lin.grad_lipschitz, 12, opt_iters=200),
        "sgld_cv_logistic": lambda: sgld_cv(logi, 0.5 / logi.grad_lipschitz, 15, opt_iters=200),
        "sgld_logistic": lambda: sgld(logi, 0.5 / logi.grad_lipschitz, 15),
        "svrgld_logistic": lambda: svrgld(logi, 0.5 / logi.grad_lipschitz, 15, 5),
        "vrsgld_gauss3": lambda: vrsgld(g3, 0.5 / g3.grad_lipschitz, 30, 10, 4),
        "saga_linreg": lambda: saga_ld(lin, 0.3 / lin.grad_lipschitz, 12),
        "saga_logistic": lambda: saga_ld(logi, 0.3 / logi.grad_lipschitz, 15),
        "sghmc_linreg": lambda: sghmc(lin, 0.1 / lin.grad_lipschitz, 0.2, n=12, resample_every=7),
        "cp_sgld_linreg": lambda: cp_sgld(lin, 0.5 / lin.grad_lipschitz, strata, 12, "proportional"),
        "cp_sghmc_linreg": lambda: cp_sghmc(lin, 0.1 / lin.grad_lipschitz, 0.2, strata, 12, "proportional"),
    }


def _runs(out: dict) -> None:
    from simulate import run

    for i, (name, build) in enumerate(_samplers().items()):
        res = run(build(), n_chains=40, n_steps=25, burn_in=5, seed=100 + i, block_size=16)
        out[f"run_{name}_final"] = res.final
        out[f"run_{name}_mean"] = res.time_averages["theta"]


def outputs() -> dict[str, np.ndarray]:
    """Every promised output, by name."""
    out: dict[str, np.ndarray] = {}
    for part in (_draws, _logistic_kernels, _model_paths, _runs):
        part(out)
    return out


#: Arrays with more elements are stored as their SHA-256 digest (the reference file stays small).
DIGEST_ABOVE = 4096


def stored_form(got: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The reference's form of ``outputs()``: small arrays as they are, large ones as ``name#sha256`` digests."""
    out = {}
    for k, v in got.items():
        v = np.ascontiguousarray(v)
        if v.size > DIGEST_ABOVE:
            out[f"{k}#sha256"] = np.frombuffer(hashlib.sha256(v.tobytes() + str(v.dtype).encode()).digest(), np.uint8)
        else:
            out[k] = v
    return out


def mismatches(got: dict[str, np.ndarray], ref) -> list[str]:
    """Names whose bits differ from the reference (or that are missing on one side), with the largest difference."""
    got = stored_form(got)
    bad = [f"{k}: missing in the reference" for k in sorted(set(got) - set(ref.files))]
    bad += [f"{k}: missing in this run" for k in sorted(set(ref.files) - set(got))]
    for k in sorted(set(got) & set(ref.files)):
        a, b = got[k], ref[k]
        if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
            if k.endswith("#sha256"):
                diff = "digest differs"
            elif a.shape != b.shape or a.dtype != b.dtype:
                diff = f"shape/dtype {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
            else:
                diff = f"max |diff| {np.max(np.abs(a.astype(float) - b.astype(float))):.3g}"
            bad.append(f"{k}: {diff}")
    return bad


def main(argv: list[str]) -> int:
    got = outputs()
    if argv == ["--write"]:
        REFERENCE.parent.mkdir(exist_ok=True)
        np.savez_compressed(REFERENCE, **stored_form(got))
        print(f"wrote {len(got)} outputs to {REFERENCE.name}")
        return 0
    bad = mismatches(got, np.load(REFERENCE))
    print(f"{len(got)} outputs compared, {len(bad)} differ", *bad, sep="\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
