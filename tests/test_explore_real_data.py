"""The explorer on a user's real data (scikit-learn's diabetes regression): it finishes and streams, bad options are
one-line errors naming the option, every optimum shows its law's accuracy and warns when its samples are unusable,
and every explanation's sentence agrees with its own numbers."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from theory import tradeoffs as tr
from theory.tradeoffs.explanation import EDGE_POSITION, NAMED_BIAS_SHARE
from verify.explore.__main__ import main
from verify.explore.grid import GridSpec, explorer_data


@pytest.fixture(scope="module")
def diabetes_csv(tmp_path_factory):
    from sklearn.datasets import load_diabetes

    d = load_diabetes()
    X = (d.data - d.data.mean(0)) / d.data.std(0)
    y = (d.target - d.target.mean()) / d.target.std()
    path = tmp_path_factory.mktemp("data") / "diabetes.csv"
    np.savetxt(path, np.column_stack([X, y])[:120], delimiter=",", header=",".join(f"x{i}" for i in range(11)),
               comments="")
    return path


def _opt(share, pos, startup, stationary, bottom=False, slopes=(1.0, -1.0), constrained=False):
    mse = 1.0
    return tr.Optimum("sgld", 1, pos, 1.0, mse, share * mse, (1 - share) * mse, 0.0, 0.0, 0, 10, 1.0, startup,
                      stationary, slopes, bottom, constrained=constrained)


def test_every_explanation_agrees_with_its_numbers():
    cases = itertools.product((0.0, 1e-32, 0.02, 0.3, 0.5, 0.97, 1.0), (0.001, 0.05, 0.5, 0.89, 0.9, 0.995),
                              ((1.0, 0.0), (0.0, 1.0), (1e-16, 1e-17)), (False, True), (False, True))
    for share, pos, (up, st), bottom, constrained in cases:
        o = _opt(share, pos, up, st, bottom, constrained=constrained)
        text = tr.explain(o)
        limit = text.split(":")[0]
        assert limit == ("bias-limited" if share >= 0.5 else "variance-limited"), text
        assert f"bias^2 {share:.0%} of the MSE" in text and f"variance {1 - share:.0%}" in text, text
        named = re.search(r"mostly (start-up|stationary) bias", text)
        assert (named is not None) == (share >= NAMED_BIAS_SHARE), text
        if named:
            assert named.group(1) == ("start-up" if abs(up) >= abs(st) else "stationary"), text
        if constrained:
            assert "variance-inflation limit" in text
        elif pos >= EDGE_POSITION:
            assert "largest stable h" in text and "bias shrinks" not in text
            assert ("variance falls" in text) == (share < 0.5), text
        elif bottom:
            assert "smallest h of the grid" in text
        else:
            assert "interior optimum" in text and "largest stable h" not in text


def test_real_data_table_streams_with_accuracy(diabetes_csv, capsys):
    rc = main(["--model", "linreg", "--data", str(diabetes_csv), "--samplers", "sgld", "sghmc", "--budget", "2e3",
               "--spot-chains", "300", "--spot-work", "1e5", "--workers", "1", "--no-page", "--seconds", "20"])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "[1/2 samplers done" in text and "[2/2 samplers done" in text
    assert "stationary law: W2" in text and "ESS" in text and "burn-in 10%" in text
    assert "within 2x the posterior's" in text
    assert re.search(r"spot-check: \d+ chains x \d+ steps simulated", text) or "spot-check skipped" in text


def test_unusable_optimum_warns_in_table_and_page(capsys):
    """The toy's MSE-of-the-mean optimum at the stability edge, without the inflation limit: far beyond 2x."""
    rc = main(["--samplers", "sgld", "--N", "1000", "--max-inflation", "inf", "--spot-chains", "0", "--no-page",
               "--workers", "1"])
    text = capsys.readouterr().out
    assert rc == 0 and "WARNING: at this optimum the stationary variance" in text
    grid = GridSpec(tr.toy(300), n_data=(300,), budgets=(1e5,), objectives=("mean",), samplers=("sgld",),
                    n_values=(1,), max_inflation=float("inf"))
    opt = explorer_data(grid, workers=1)["cells"][0][0][0]["opt"][0]
    assert opt["warning"].startswith("WARNING") and opt["warning"] in opt["explanation"]
    limited = explorer_data(GridSpec(tr.toy(300), n_data=(300,), budgets=(1e5,), objectives=("mean",),
                                     samplers=("sgld",), n_values=(1,), max_inflation=2.0), workers=1)
    assert limited["cells"][0][0][0]["opt"][0]["warning"] == ""  # the default limit: a usable optimum


@pytest.mark.parametrize("args, option", [
    (["--N", "500"], "--N"),
    (["--coordinate", "12"], "--coordinate"),
    (["--burn-in", "1"], "--burn-in"),
    (["--sigma", "0"], "--sigma"),
    (["--fractions", "0.5", "0.2"], "--fractions"),
    (["--max-inflation", "0.5"], "--max-inflation"),
])
def test_bad_options_are_one_line_errors(diabetes_csv, capsys, args, option):
    rc = main(["--model", "linreg", "--data", str(diabetes_csv), "--no-page", "--spot-chains", "0", *args])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.count("\n") == 0 and option in err, err


def test_constant_column_and_flat_prior_on_a_singular_design(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    for name, Z, extra, option in (("const", np.column_stack([X, np.full(50, 2.0)]), [], "column 4"),
                                   ("coll", np.column_stack([X, X[:, 0] + X[:, 1]]), ["--sigma0", "inf"], "--sigma0")):
        path = tmp_path / f"{name}.csv"
        np.savetxt(path, np.column_stack([Z, rng.normal(size=50)]), delimiter=",")
        rc = main(["--model", "linreg", "--data", str(path), "--no-page", *extra])
        err = capsys.readouterr().err.strip()
        assert rc == 2 and err.count("\n") == 0 and option in err, err


def test_hard_time_limit_stops_a_task_and_keeps_its_last_report():
    """verify.explore.limits: a task past its limit is stopped and its last report kept, a quick one returns, a failing
    one comes back with its traceback; with ``total`` every task ends within it."""
    from _limited_tasks import count, fail

    from verify.explore.limits import run_limited

    tasks = [("slow", count, (10**4, 0.02), 0.5), ("quick", count, (3, 0.0), 30.0), ("bad", fail, (), 30.0)]
    out = {o.key: o for o in run_limited(tasks, 2)}
    assert out["slow"].status == "stopped" and out["slow"].limit == 0.5 and 0.5 <= out["slow"].seconds < 4.0
    assert isinstance(out["slow"].value, int) and 0 < out["slow"].value < 10**4 - 1
    assert out["quick"].status == "done" and out["quick"].value == "done"
    assert out["bad"].status == "error" and "planted failure" in out["bad"].value
    shared = list(run_limited([(k, count, (10**4, 0.02), None) for k in range(3)], 2, total=1.0))
    assert [o.status for o in shared] == ["stopped"] * 3 and all(o.seconds < 1.0 + 1.0 for o in shared)


def test_stopped_sampler_keeps_its_finished_rows_exactly():
    """theory.tradeoffs.stopped: from the report after the first finished row (the largest n), the grid optimum of
    that row (the engine's exact number, as in the full surface) and the other n named as left out for the time
    limit; a stop before any row gives a reason, never a number."""
    q = tr.Tradeoff(tr.toy(300), tr.Budget(1e4), tr.Objective.mean(), tr.SamplerOptions())
    reports = []
    full = tr.answer(q, "sgld", n_values=(1, 10, 100), refine=False, spot_chains=0,
                     report=lambda r: reports.append(r))
    first = reports[0]
    assert list(first.surface.n) == [100] and first.surface.skipped_n == (1, 10)
    res = tr.stopped(q, first, "sgld", 3.0)
    i = list(full.surface.n).index(100)
    j = int(np.nanargmin(full.surface.mse[i]))
    assert res.optimum.n == 100 and res.optimum.mse == full.surface.mse[i, j] and not res.optimum.refined
    assert res.notes == ["n = 1, 10 left out: time limit (this sampler's process was stopped at 3 s; --seconds)"]
    assert "time limit" in tr.stopped(q, None, "sgld", 3.0).error
