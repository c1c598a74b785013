"""python -m verify.explore --model logistic: answered by the grid law (the exact route, default), with the Laplace
answer beside it; --route laplace keeps the Laplace approximation; bad options are one-line errors."""

from __future__ import annotations

import re

import numpy as np
import pytest

from simulate.models.low_dim_logistic import small_logistic_1d
from verify.explore.__main__ import main


@pytest.fixture(scope="module")
def csv_1d(tmp_path_factory):
    m = small_logistic_1d()  # N = 12, d = 1: every minibatch law is an enumerated mixture
    path = tmp_path_factory.mktemp("logistic") / "data.csv"
    np.savetxt(path, np.column_stack([m.X, m.y]), delimiter=",", header="x,y")
    return path


def test_cli_exact_route_with_the_laplace_comparison(csv_1d, capsys):
    rc = main(["--model", "logistic", "--data", str(csv_1d), "--sigma0", "2", "--budget", "600", "--samplers", "sgld",
               "--fractions", "0.2", "0.5", "--spot-chains", "0", "--workers", "1", "--no-page"])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "exact (grid law)" in text and "Laplace approximation" not in text.split("\n")[0]
    line = next(s for s in text.splitlines() if s.strip().startswith("SGLD (without replacement): exact optimum"))
    exact_mse, lap_own, lap_exact, regret = map(float, re.search(
        r"MSE ([\d.e+-]+); Laplace optimum .* MSE ([\d.e+-]+) by its own \(Gaussian\) law but ([\d.e+-]+) exactly "
        r"\(([\d.e+-]+) x", line).groups())
    assert regret == pytest.approx(lap_exact / exact_mse, rel=1e-2)
    assert lap_own != pytest.approx(lap_exact, rel=1e-3)  # the Laplace law's own MSE is not the exact one


def test_cli_exact_route_page_is_the_table(csv_1d, tmp_path, capsys, monkeypatch):
    """On the exact route the page asks what the table answered (its objective and budget at the data's N): its
    cells are made from the table's surfaces and optima, none is computed again; mSGLD answers too."""
    import verify.explore.grid as page_grid

    real = page_grid.run_limited

    def no_recomputation(tasks, *args, **kwargs):
        assert not tasks, f"the page computed again: {[t[0] for t in tasks]}"
        return real(tasks, *args, **kwargs)

    monkeypatch.setattr(page_grid, "run_limited", no_recomputation)
    out = tmp_path / "page.html"
    rc = main(["--model", "logistic", "--data", str(csv_1d), "--sigma0", "2", "--budget", "600", "--samplers", "sgld",
               "msgld", "--fractions", "0.2", "0.5", "--spot-chains", "0", "--workers", "1", "--out", str(out)])
    text = capsys.readouterr().out
    assert rc == 0, text
    assert re.search(r"^mSGLD\s+\d+\s", text, re.M), text
    assert out.exists() and "mSGLD" in out.read_text()


def test_cli_laplace_route_and_bad_options(csv_1d, tmp_path, capsys):
    rc = main(["--model", "logistic", "--route", "laplace", "--data", str(csv_1d), "--N", "12", "--budget", "600",
               "--samplers", "sgld", "--fractions", "0.2", "0.5", "--spot-chains", "0", "--workers", "1",
               "--no-page"])
    text = capsys.readouterr().out
    assert rc == 0 and "Laplace approximation" in text and "Laplace route against" not in text
    assert main(["--model", "toy", "--route", "exact", "--no-page"]) == 2
    assert "--route applies to --model logistic" in capsys.readouterr().err
    assert main(["--model", "logistic", "--data", str(csv_1d), "--N", "6", "--no-page"]) == 2
    assert "--N" in capsys.readouterr().err
    wide = tmp_path / "wide.csv"
    rng = np.random.default_rng(0)
    np.savetxt(wide, np.column_stack([rng.standard_normal((30, 3)), np.sign(rng.standard_normal(30))]),
               delimiter=",")
    assert main(["--model", "logistic", "--data", str(wide), "--no-page"]) == 2
    assert "use --route laplace" in capsys.readouterr().err
