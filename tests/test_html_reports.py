"""The HTML reports: report.html renders every claim of a results.json (offline, figures embedded, filters), the
check figure shows every point, the calibration page; the mutants page is tested in test_mutants.py."""

from __future__ import annotations

import json
import subprocess
import sys
from html import escape
from pathlib import Path

import matplotlib
import pytest

from verify.__main__ import main
from verify.figures import check_figure
from verify.report_html import category, detectable, render_html

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]

#: Fast claims covering: own figure + checks, an erratum with z in the hundreds, exact checks only, out of scope,
#: one-sided checks.
CLAIMS = ["chen.alg1.vr_estimator_moments", "baker.zv.printed_operator", "baker.zv.printed_sign",
          "chen.lemma2.gamma_nonnegative", "baker.sec3.fig1_method_ranking", "vollmer.sec2.finite_k_moments"]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    args = [a for c in CLAIMS for a in ("--claim", c)]
    assert main([*args, "--chains", "2000", "--seed", "3", "--out", str(out), "--no-progress"]) == 0
    return out


def test_report_html_renders_every_claim_offline(report):
    res = json.loads((report / "results.json").read_text())
    page = (report / "report.html").read_text()
    assert len(page.encode()) < 15_000_000
    assert "http://" not in page and "https://" not in page  # no network address: it opens offline
    assert len(res["claims"]) == len(CLAIMS)
    for c in res["claims"]:
        assert f'<h2 id="{c["id"]}">' in page and escape(c["statement"]) in page and escape(c["source"]) in page
        assert f'data-paper="{c["paper"]}" data-verdict="{category(c)}"' in page
        if c["erratum"]:
            assert escape(c["erratum"]) in page
        for k in c["checks"]:
            assert escape(k["label"]) in page
    section = page.split('<h2 id="chen.alg1.vr_estimator_moments">')[1].split("</section>")[0]
    assert section.count('<img class="fig" src="data:image/png;base64,') == 2  # checks + its own figure
    oos = page.split('<h2 id="baker.sec3.fig1_method_ranking">')[1].split("</section>")[0]
    assert "<img" not in oos and "Out of scope" in oos
    assert '<select id="paper">' in page and '<option value="erratum">' in page


def test_report_html_is_rebuilt_from_results_json_alone(report, tmp_path):
    from verify.report import main as report_main

    assert report_main([str(report / "results.json"), str(tmp_path / "again.html")]) == 0
    assert (tmp_path / "again.html").read_text() == (report / "report.html").read_text()
    res = json.loads((report / "results.json").read_text())
    bare = render_html(res, None)  # without the figure files: the check figures drawn from the records
    assert bare.count('<img class="fig"') == sum(bool(c["checks"]) for c in res["claims"])


def test_no_family_figure_under_other_claims(report):
    res = json.loads((report / "results.json").read_text())
    figs = [c["figure"] for c in res["claims"] if c["figure"]] + [c["check_figure"] for c in res["claims"]
                                                                   if c["check_figure"]]
    assert len(figs) == len(set(figs))
    assert all(f.endswith(f"{c['id']}.png") for c in res["claims"] for f in (c["figure"], c["check_figure"]) if f)


def test_check_figure_shows_every_point_including_errata(report):
    res = json.loads((report / "results.json").read_text())
    (c,) = [c for c in res["claims"] if c["id"] == "baker.zv.printed_sign"]
    assert max(abs(k["z"]) for k in c["checks"]) > 50  # an erratum far outside any fixed axis
    fig = check_figure(c["checks"], 3.9, 10)
    for ax in fig.axes:
        lo, hi = ax.get_xlim()
        for line in ax.lines:
            xs = line.get_xdata()
            assert all(lo <= x <= hi for x in xs)
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert len(labels) == len(set(labels))  # no repeated (overlapping) tick labels


def test_detectable_deviation_and_categories():
    k = {"se": 2.0, "kind": "two-sided"}
    assert detectable(k, 0.01, 10) == pytest.approx((3.2905267 + 1.2815516) * 2.0, rel=1e-6)
    assert detectable({"se": "nan"}, 0.01, 10) is None
    assert category({"verdict": "fails", "expected": "fails"}) == "erratum"
    assert category({"verdict": "fails", "expected": "holds"}) == "fails"
    assert category({"verdict": "out of scope", "expected": "holds"}) == "oos"


def test_calibration_page(tmp_path):
    """Two seeds of two fast claims through benchmarks/calibration.py: the page holds the totals and every run."""
    page = tmp_path / "cal.html"
    p = subprocess.run([sys.executable, "benchmarks/calibration.py", "--seeds", "2", "--jobs", "2", "--chains", "400",
                        "--claim", "chen.lemma2.gamma_nonnegative", "--claim", "vollmer.sec2.finite_k_moments",
                        "--html", str(page), "--svg", str(tmp_path / "cal.svg")],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    html = page.read_text()
    assert "runs with a false failure" in html and "<svg" in html and "http://" not in html
    assert html.count("all as registered") == 2
    svg = (tmp_path / "cal.svg").read_text()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "runs with a false failure" in svg


def test_check_figure_shows_whole_labels_inside_the_figure_and_a_legend():
    """Long check labels are wrapped, not cut, and stay inside the figure; what the points, bars, colours and the
    line mean is a legend at the size of the labels, not a tiny title."""
    long = "stationary variance of theta_0 under SGLD with n = 10 of N = 1000 (Vollmer et al. eq. 18)"
    checks = [dict(label=long, theory=0.0062, estimate=0.00621, se=2e-5, z=0.5, rejected=False),
              dict(label="E theta after 500 steps", theory=1.0, estimate=1.03, se=1e-4, z=300.0, rejected=True),
              dict(label="E theta_1 (theory 0)", theory=0.0, estimate=1e-4, se=2e-4, z=0.5, rejected=False)]
    fig = check_figure(checks, 4.38, 854)
    fig.canvas.draw()
    box = fig.bbox
    shown_ticks = [t for ax in fig.axes for t in ax.get_xticklabels()  # those inside the view: the drawn ones
                   if min(ax.get_xlim()) <= t.get_position()[0] <= max(ax.get_xlim())]
    texts = [t for ax in fig.axes for t in (*ax.get_yticklabels(), ax.xaxis.label, *ax.texts)] + shown_ticks
    (legend,) = fig.legends
    texts += [*legend.get_texts(), fig._suptitle]
    for t in texts:
        if t.get_text():
            b = t.get_window_extent()
            assert box.x0 - 1 <= b.x0 and b.x1 <= box.x1 + 1 and box.y0 - 1 <= b.y0 and b.y1 <= box.y1 + 1, t
    shown = " ".join(t.get_text() for t in fig.axes[0].get_yticklabels())
    assert " ".join(shown.split()).startswith("1. " + long)  # the whole label, wrapped
    assert [t.get_text() for t in legend.get_texts()][0].startswith("simulation, bar +-4.38 s.e.")
    assert min(t.get_fontsize() for t in legend.get_texts()) >= 8 and fig._suptitle.get_fontsize() >= 10
    assert "+3.00e+02" not in shown and any(t.get_text() == "z = +300.00" for t in fig.axes[0].texts)
