"""Bad input through the public API (simulate, theory, verify) and the CLIs: a clear error naming the parameter and
its valid range, never NaN, never a hang."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import theory.toy.finite_time as tft
from simulate.estimators.minibatch import Minibatch
from simulate.models.gaussian import GaussianMeanModel
from simulate.models.logistic import LogisticRegressionModel
from simulate.runtime.runner import run
from simulate.samplers import euler, msgld, sgld, svrgld, vrsgld
from simulate.validation import ParameterError
from theory.chains import chen_mse
from theory.noise import vr as vr_noise
from theory.toy.chain import ToyChain
from theory.toy.constants import toy_constants
from verify.__main__ import main as verify_main
from verify.mutants._harness import main as mutants_main

MODEL = GaussianMeanModel.simulate_data(50, theta_true=1.0, seed=1)
H_MAX = 4.0 / MODEL.grad_lipschitz
DATA = MODEL.data[:, 0]
GD = vr_noise.GaussianData.of(DATA)


def _sampler():
    return sgld(MODEL, 0.1 / MODEL.A, 5)


# (call, regex the message must match: the parameter's name and its valid range)
API_CASES = {
    "h at the stability edge": (lambda: sgld(MODEL, H_MAX, 5), r"h must satisfy 0 < h < .*the chain's mean is stable"),
    "h beyond the stability edge": (lambda: euler(MODEL, 2 * H_MAX), r"h must satisfy 0 < h <"),
    "h = 0": (lambda: sgld(MODEL, 0.0, 5), r"h must satisfy 0 < h"),
    "h negative": (lambda: msgld(MODEL, -1e-3, 5), r"h must satisfy 0 < h"),
    "h NaN": (lambda: sgld(MODEL, float("nan"), 5), r"h must satisfy 0 < h"),
    "h inf": (lambda: sgld(MODEL, float("inf"), 5), r"h must satisfy 0 < h"),
    "h a string": (lambda: sgld(MODEL, "abc", 5), r"h must be a positive real number"),
    "n = 0": (lambda: sgld(MODEL, 1e-3, 0), r"n must satisfy 1 <= n <= 50"),
    "n > N": (lambda: sgld(MODEL, 1e-3, 51), r"n must satisfy 1 <= n <= 50"),
    "n not an integer": (lambda: sgld(MODEL, 1e-3, 2.5), r"n must be an integer"),
    "replace not a bool": (lambda: sgld(MODEL, 1e-3, 5, replace="yes"), r"replace must be True or False"),
    "sigma_x = 0": (lambda: GaussianMeanModel(DATA, sigma_x=0.0), r"sigma_x must satisfy 0 < sigma_x"),
    "sigma_x negative": (lambda: GaussianMeanModel(DATA, sigma_x=-1.0), r"sigma_x must satisfy 0 < sigma_x"),
    "sigma0 = 0": (lambda: GaussianMeanModel(DATA, sigma0=0.0), r"sigma0 must satisfy"),
    "NaN data": (lambda: GaussianMeanModel(np.array([1.0, np.nan, 2.0])), r"data contains NaN"),
    "inf data": (lambda: GaussianMeanModel(np.array([1.0, np.inf])), r"data contains NaN or infinite"),
    "data of wrong shape": (lambda: GaussianMeanModel(np.zeros((3, 2, 2))), r"data must have ndim in \(1, 2\)"),
    "empty data": (lambda: GaussianMeanModel(np.zeros(0)), r"data must not be empty"),
    "n_data = 0": (lambda: GaussianMeanModel.simulate_data(0), r"n_data must satisfy 1 <= n_data"),
    "logistic NaN X": (lambda: LogisticRegressionModel(np.array([[np.nan, 1.0]]), np.array([1.0])),
                       r"X contains NaN"),
    "n_chains = 0": (lambda: run(_sampler(), 0, 10), r"n_chains must satisfy 1 <= n_chains"),
    "n_steps negative": (lambda: run(_sampler(), 10, -1), r"n_steps must satisfy 0 <= n_steps"),
    "burn_in negative": (lambda: run(_sampler(), 10, 5, burn_in=-2), r"burn_in must satisfy 0 <= burn_in"),
    "seed negative": (lambda: run(_sampler(), 10, 5, seed=-1), r"seed must satisfy 0 <= seed"),
    "theta0 of wrong shape": (lambda: run(_sampler(), 10, 5, theta0=np.zeros((9, 1))),
                              r"theta0 must have shape \(10, d\)"),
    "theta0 NaN": (lambda: run(_sampler(), 4, 5, theta0=np.full((4, 1), np.nan)), r"theta0 contains NaN"),
    "unknown test function": (lambda: run(_sampler(), 4, 5, test_functions=("theta3",)),
                              r"test_functions: unknown name 'theta3'; valid names"),
    "vr n2 >= n1": (lambda: vrsgld(MODEL, 1e-3, 5, 5, 2), r"n2 must be an integer with 1 <= n2 < n1 = 5"),
    "vr n1 > N": (lambda: vrsgld(MODEL, 1e-3, 60, 5, 2), r"n1 must be an integer with 2 <= n1 <= N = 50"),
    "vr m = 0": (lambda: vrsgld(MODEL, 1e-3, 10, 5, 0), r"m must be an integer with m >= 1"),
    "svrg n2 = N": (lambda: svrgld(MODEL, 1e-3, 50, 2), r"n2 must be an integer with 1 <= n2 < n1 = 50"),
    "toy constants n = 0": (lambda: toy_constants(DATA, 0), r"n must satisfy 1 <= n <= 50"),
    "toy constants n > N": (lambda: toy_constants(DATA, 51), r"n must satisfy 1 <= n <= 50"),
    "toy constants one datum": (lambda: toy_constants([1.0], 1), r"data must hold N >= 2"),
    "toy chain h beyond 2/A": (lambda: ToyChain("sgld", toy_constants(DATA, 5), 2.0 / MODEL.A),
                               r"h must satisfy 0 < h < .*h < 2/A"),
    "toy chain unknown method": (lambda: ToyChain("hmc", toy_constants(DATA, 5), 0.1 / MODEL.A),
                                 r"method must be one of"),
    "finite time r = 2": (lambda: tft.toy_finite_time("sgld", DATA, 5, r=2.0), r"r must satisfy 0 < r < 2"),
    "finite time h and r both": (lambda: tft.toy_finite_time("sgld", DATA, 5, r=0.1, h=0.001),
                                 r"give exactly one of h .* and r"),
    "finite time n missing": (lambda: tft.toy_finite_time("msgld", DATA, r=0.1), r"n must be given for msgld"),
    "finite time dps too small": (lambda: tft.toy_finite_time("sgld", DATA, 5, r=0.1, dps=5),
                                  r"dps must satisfy 20 <= dps"),
    "chen mse L = 0": (lambda: chen_mse.mse_theta(GD, 1e-3, 0, 1.0),
                       r"L must satisfy 1 <= L"),
    "chen mse h negative": (lambda: chen_mse.mse_theta(GD, -1e-3, 10, 1.0),
                            r"h must satisfy 0 < h"),
    "chen mse negative noise variance": (lambda: chen_mse.mse_theta(GD, 1e-3, 10, -1.0), r"V must be finite and >= 0"),
    "chen minibatch n > N": (lambda: vr_noise.minibatch_noise(np.ones((5, 2)), 6), r"n must satisfy 1 <= n <= 5"),
    # types: nothing is silently cast
    "h a numeric string": (lambda: sgld(MODEL, "0.001", 5), r"h must be a positive real number, got str '0.001'"),
    "h a boolean": (lambda: sgld(MODEL, True, 5), r"h must be a positive real number, got bool"),
    "h complex": (lambda: sgld(MODEL, 1e-3 + 0j, 5), r"h must be a positive real number, got complex"),
    "n a string": (lambda: sgld(MODEL, 1e-3, "5"), r"n must be an integer, got '5'"),
    "n a boolean": (lambda: sgld(MODEL, 1e-3, True), r"n must be an integer, got True"),
    "n_chains a string": (lambda: run(_sampler(), "100", 5), r"n_chains must be an integer, got '100'"),
    "n_chains a float": (lambda: run(_sampler(), 100.0, 5), r"n_chains must be an integer, got 100.0"),
    "n_steps a string": (lambda: run(_sampler(), 10, "5"), r"n_steps must be an integer"),
    "data of strings": (lambda: GaussianMeanModel(np.array(["1.0", "2.0"])), r"data must hold real numbers .* strings"),
    "data as a list of strings": (lambda: GaussianMeanModel(["1.0", "2.0"]), r"data must hold real numbers .* strings"),
    "data of booleans": (lambda: GaussianMeanModel(np.array([True, False, True])), r"data must hold real .* booleans"),
    "data complex": (lambda: GaussianMeanModel(np.array([1.0 + 1j, 2.0])), r"data must hold real .* complex"),
    "data of objects": (lambda: GaussianMeanModel(np.array([1.0, None], dtype=object)), r"data must hold real .* "
                        "Python objects"),
    "logistic X of strings": (lambda: LogisticRegressionModel(np.array([["1", "2"]]), np.array([1.0])),
                              r"X must hold real numbers .* strings"),
    "logistic y of booleans": (lambda: LogisticRegressionModel(np.ones((2, 1)), np.array([True, False])),
                               r"y must hold real numbers .* booleans"),
    "theta0 of strings": (lambda: run(_sampler(), 4, 5, theta0=np.array(["0.1"])), r"theta0 must hold real numbers"),
    "sigma_x a string": (lambda: GaussianMeanModel(DATA, sigma_x="1"), r"sigma_x must be a positive real number"),
    "theta_true complex": (lambda: GaussianMeanModel.simulate_data(10, theta_true=1j), r"theta_true must hold real"),
}


@pytest.mark.parametrize("case", sorted(API_CASES))
def test_api_bad_input_names_parameter_and_range(case):
    call, match = API_CASES[case]
    with pytest.raises(ParameterError, match=match):
        call()


def test_minibatch_estimator_checks_n_against_the_model():
    with pytest.raises(ParameterError, match=r"n must satisfy 1 <= n <= 50"):
        Minibatch(100).init(MODEL, 4, np.random.default_rng(0))


def test_too_many_chains_for_memory_is_refused_up_front():
    """A run whose per-chain state cannot fit in memory must say so before allocating (n_chains)."""
    with pytest.raises(ParameterError, match=r"n_chains = 1000000000000000 .* n_chains must be <= \d+"):
        run(_sampler(), 10**15, 2, trace_stride=1)


# --- the CLIs: exit code 2 and a message naming the option and its range, on stderr
CLI_CASES = {
    "unknown paper": (["--paper", "nosuchpaper"], "paper must be one of"),
    "unknown claim": (["--claim", "nosuch.claim"], "unknown claim id 'nosuch.claim'"),
    "chains = 0": (["--chains", "0"], "--chains must satisfy 4 <= --chains"),
    "chains negative": (["--chains", "-10"], "--chains must satisfy 4 <= --chains"),
    "seed negative": (["--seed", "-1"], "--seed must satisfy 0 <= --seed"),
    "alpha = 0": (["--alpha", "0"], "--alpha must satisfy 0 < alpha < 1"),
    "alpha > 1": (["--alpha", "1.5"], "--alpha must satisfy 0 < alpha < 1"),
    "alpha NaN": (["--alpha", "nan"], "--alpha must satisfy 0 < alpha < 1"),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_verify_cli_bad_input(case, capsys, tmp_path):
    argv, msg = CLI_CASES[case]
    assert verify_main([*argv, "--out", str(tmp_path), "--no-progress"]) == 2
    assert msg in capsys.readouterr().err


def test_verify_cli_rerun_bad_json(tmp_path, capsys):
    bad = tmp_path / "results.json"
    bad.write_text("{not json")
    assert verify_main(["--rerun", str(bad)]) == 2
    assert "--rerun needs a results.json" in capsys.readouterr().err
    bad.write_text(json.dumps({"settings": {"chains": 10, "seed": 1, "alpha": 0.01}, "claims": [{"id": "no.such"}]}))
    assert verify_main(["--rerun", str(bad)]) == 2
    assert "unknown claim id 'no.such'" in capsys.readouterr().err


@pytest.mark.parametrize("argv,msg", [
    (["--chains", "many"], "--chains must be an integer >= 4, got 'many'"),
    (["--chains", "1e4"], "--chains must be an integer >= 4, got '1e4'"),
    (["--seed", "one"], "--seed must be an integer >= 0, got 'one'"),
    (["--workers", "2.5"], "--workers must be an integer >= 1, got '2.5'"),
    (["--alpha", "small"], "--alpha must be a number with 0 < alpha < 1, got 'small'"),
])
def test_verify_cli_strings_for_numbers(argv, msg, capsys):
    assert verify_main(argv) == 2
    assert msg in capsys.readouterr().err


@pytest.mark.parametrize("argv,msg", [
    (["--mutant", "no.such"], "unknown mutant id 'no.such'"),
    (["--module", "nosuchmodule"], "--module must be one of"),
    (["--jobs", "0"], "--jobs must satisfy 1 <= --jobs"),
    (["--chains", "2"], "--chains must satisfy 4 <= --chains"),
    (["--alpha", "2"], "--alpha must satisfy 0 < alpha < 1"),
])
def test_mutants_cli_bad_input(argv, msg, capsys):
    assert mutants_main(argv) == 2
    assert msg in capsys.readouterr().err


def test_cli_subprocess_unknown_paper_exits_2_quickly():
    p = subprocess.run([sys.executable, "-m", "verify", "--paper", "nosuchpaper", "--no-progress"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "paper must be one of" in p.stderr


# ------------------------------------------------------------------ the exact engine (theory.linear_gaussian)
def _engine_cases():
    from simulate.affine import AffineParts
    from simulate.estimators.vr import SVRG
    from simulate.models.linear_regression import LinearRegressionModel
    from simulate.samplers import sghmc
    from theory import exact_law

    lr = LinearRegressionModel.simulate_data(30, dim=2, seed=5, scale_spread=0.8)

    class FlatPriorRegression(LinearRegressionModel):
        """More parameters than data and a flat prior: an improper posterior."""

        def grad_log_prior(self, theta):
            return np.zeros_like(theta)

        def affine_parts(self):
            p = super().affine_parts()
            return AffineParts.rank_one(np.zeros((self.dim, self.dim)), p.prior_shift, p.weights, p.factors, p.shifts)

    flat = FlatPriorRegression.simulate_data(2, dim=3, seed=1)
    logistic = LogisticRegressionModel(np.array([[1.0, 0.5], [0.2, -1.0], [0.3, 0.3]]), np.array([1.0, -1.0, 1.0]))
    law = exact_law(sgld(lr, 0.3 / lr.grad_lipschitz, 3))
    return {
        "model without affine structure": (lambda: exact_law(sgld(logistic, 1e-3, 2)),
                                           r"model LogisticRegressionModel has no affine gradient structure"),
        "singular prior": (lambda: exact_law(sgld(flat, 1e-3, 1)), r"prior_precision: the posterior precision"),
        "unstable h (multiplicative noise)": (lambda: exact_law(sgld(lr, 2.0 / lr.grad_lipschitz, 3)).stationary_cov(),
                                              r"h = .* is not mean-square stable .* stability limit .* h\* = "),
        "window of length 0": (lambda: law.time_average_mse(np.ones(2), n_steps=0),
                               r"n_steps must satisfy 1 <= n_steps"),
        "negative burn-in": (lambda: law.time_average_mse(np.ones(2), n_steps=5, burn_in=-1),
                             r"burn_in must satisfy 0 <= burn_in"),
        "observable of wrong shape": (lambda: law.time_average_mse(np.ones(3), n_steps=5), r"a must have shape \(2,\)"),
        "non-symmetric quadratic": (lambda: law.time_average_mse(quadratic=np.array([[1.0, 1.0], [0.0, 1.0]]),
                                                                 n_steps=5), r"quadratic must be a symmetric"),
        "negative k": (lambda: law.mean(-1), r"k must satisfy 0 <= k"),
        "theta0 of wrong shape": (lambda: exact_law(sgld(lr, 1e-3, 3), theta0=np.zeros(3)),
                                  r"theta0 must have shape \(2,\)"),
        "periodic chain without a phase": (lambda: exact_law(sghmc(lr, 1e-3, 0.5, SVRG(2, 3))).stationary_cov(),
                                           r"phase: the stationary law of this sampler is 3-periodic"),
        "phase out of range": (lambda: exact_law(sghmc(lr, 1e-3, 0.5, SVRG(2, 3))).stationary_cov(phase=3),
                               r"phase must satisfy 0 <= phase <= 2"),
        "estimator without an exact law": (lambda: exact_law(msgld_estimated(lr)),
                                           r"EstimatedCovMinibatch: no law registered on route .affine."),
    }


def msgld_estimated(model):
    from simulate.samplers import msgld_estimated_cov

    return msgld_estimated_cov(model, 1e-3, 3)


ENGINE_CASES = _engine_cases()


@pytest.mark.parametrize("case", sorted(ENGINE_CASES))
def test_engine_bad_input_names_parameter(case):
    call, msg = ENGINE_CASES[case]
    with pytest.raises(ParameterError, match=msg):
        call()
