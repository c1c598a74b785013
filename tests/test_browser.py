"""The report and the explorer in a real browser: headless Debian Chromium driven by selenium (chromedriver).

Opens report.html and the explorer page from files (no server, no network), checks that nothing fails in the
console, moves a slider and reads the new optimum (checked against the engine's brute-force minimum), filters the
claim table, and saves screenshots to output/screenshots/. Skips, with the reason, where no browser is installed
(``.ci/run`` installs Debian's chromium and chromium-driver).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from _brute import brute_force

from theory import tradeoffs as tr
from verify.explore.grid import PAGE_FRACTIONS, GridSpec, explorer_data
from verify.explore.page import write_page

# one worker builds the reference site once for every test that opens it (pytest-xdist's --dist loadgroup)
pytestmark = pytest.mark.xdist_group("site")

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "output" / "screenshots"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--window-size=1400,1100"]
GRID = dict(n_data=(100, 300), budgets=(1e3, 1e4, 1e5), objectives=("mean", "quadratic"),
            samplers=("sgld", "msgld", "sgld_cv", "vrsgld", "sghmc"), n_values=(1, 3, 10, 30, 100),
            fractions=PAGE_FRACTIONS)


def _browser():
    chrome = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver")
    if not (chrome and driver):
        pytest.skip("no browser: install Debian's chromium and chromium-driver (apt-get install -y chromium "
                    "chromium-driver; .ci/run does) to run the browser tests")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[test]')")
    return chrome, driver, webdriver, Service


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chrome, driver, webdriver, Service = _browser()
    opts = webdriver.ChromeOptions()
    for flag in FLAGS + [f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}"]:
        opts.add_argument(flag)
    opts.binary_location = chrome
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(driver), options=opts)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield d
    d.quit()


def _console_errors(d) -> list:
    return [e for e in d.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _by_id(d, name):
    from selenium.webdriver.common.by import By

    return d.find_element(By.ID, name)


def _optimum(d) -> tuple[int, float, float]:
    m = re.match(r"n = (\d+), h = ([\d.e-]+), MSE = ([\d.e-]+)", _by_id(d, "optimum").text)
    assert m, _by_id(d, "optimum").text
    return int(m.group(1)), float(m.group(2)), float(m.group(3))


@pytest.fixture(scope="module")
def explorer_grid(tmp_path_factory) -> dict:
    _browser()
    return explorer_data(GridSpec(tr.toy(300), **GRID), workers=1)


@pytest.fixture(scope="module")
def explorer(explorer_grid, tmp_path_factory) -> Path:
    return write_page(explorer_grid, tmp_path_factory.mktemp("explorer") / "explorer.html")


def test_explorer_slider_moves_give_the_engine_optimum(browser, explorer):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    d = browser
    d.get(explorer.as_uri())
    assert _console_errors(d) == []
    d.save_screenshot(str(SHOTS / "explorer-default.png"))
    # the default state: objective mean, SGLD, N = 100 (no N = 1000 here), budget 1e5
    n, h, mse = brute_force(100, "mean", "sgld", 1e5, PAGE_FRACTIONS, GRID["n_values"])
    assert _optimum(d) == (n, pytest.approx(h, rel=1e-3), pytest.approx(mse, rel=1e-3))
    _by_id(d, "budget").send_keys(Keys.LEFT)  # budget 1e5 -> 1e4: a slider move redraws from the grid
    n, h, mse = brute_force(100, "mean", "sgld", 1e4, PAGE_FRACTIONS, GRID["n_values"])
    assert _optimum(d) == (n, pytest.approx(h, rel=1e-3), pytest.approx(mse, rel=1e-3))
    Select(_by_id(d, "objective")).select_by_index(1)  # theta^2: the Vollmer overlay appears for SGLD
    _by_id(d, "N").send_keys(Keys.RIGHT)  # N = 300
    n, h, mse = brute_force(300, "quadratic", "sgld", 1e4, PAGE_FRACTIONS, GRID["n_values"])
    assert _optimum(d) == (n, pytest.approx(h, rel=1e-3), pytest.approx(mse, rel=1e-3))
    assert "Vollmer et al." in _by_id(d, "vollmer-note").text and "limited" in _by_id(d, "explanation").text
    _by_id(d, "to-optimum").click()
    assert _by_id(d, "n-out").text.split()[0] == str(n)
    d.save_screenshot(str(SHOTS / "explorer-quadratic-optimum.png"))
    for key in (Keys.LEFT, Keys.LEFT, Keys.LEFT):
        _by_id(d, "h").send_keys(key)
    d.save_screenshot(str(SHOTS / "explorer-smaller-h.png"))
    Select(_by_id(d, "sampler")).select_by_index(3)  # vrSG-MCMC x theta^2: not precomputed, says why
    assert "allow_slow=True" in _by_id(d, "readout").text and _by_id(d, "optimum").text == "n/a"
    assert _console_errors(d) == []


def test_explorer_shows_each_cells_note(browser, explorer_grid, tmp_path):
    """A cell's ``note`` (rows left out at the time limit, points found unstable) is shown beside its optimum, and
    only for that cell; SGHMC's h readout shows the matched Langevin step 2 eta / alpha."""
    import copy

    from selenium.webdriver.support.ui import Select

    data = copy.deepcopy(explorer_grid)
    note = "n = 1, 3 left out: time limit (this cell's process was stopped at 2.0 s; --page-seconds)"
    assert all(c.get("note", "") == "" for o in data["cells"] for s in o for c in s if not c["error"])
    data["cells"][0][0][0]["note"] = note  # mean, SGLD, N = 100: the page's first view
    d = browser
    d.get(write_page(data, tmp_path / "explorer-note.html").as_uri())
    assert _console_errors(d) == []
    shown = _by_id(d, "cell-note")
    assert shown.is_displayed() and shown.text == f"Note: {note}."
    Select(_by_id(d, "sampler")).select_by_index(1)  # mSGLD: no note
    assert not _by_id(d, "cell-note").is_displayed() and _by_id(d, "cell-note").text == ""
    assert "Langevin" not in _by_id(d, "h-out").text
    Select(_by_id(d, "sampler")).select_by_index(4)  # SGHMC: its h is eta, the matched Langevin step beside it
    eta, h = re.search(r"^([\d.e-]+) = .*matched Langevin step 2 eta/alpha = ([\d.e-]+)\)$",
                       _by_id(d, "h-out").text).groups()
    assert float(h) == pytest.approx(2 * float(eta) / 0.1, rel=1e-3)
    assert _console_errors(d) == []


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    _browser()
    from verify.__main__ import main

    out = tmp_path_factory.mktemp("report")
    claims = ["chen.alg1.vr_estimator_moments", "chen.lemma2.gamma_nonnegative", "baker.zv.printed_operator",
              "baker.zv.printed_sign", "baker.sec3.fig1_method_ranking", "vollmer.sec2.finite_k_moments",
              "vollmer.thm52.toy_constants"]
    assert main([a for c in claims for a in ("--claim", c)] + ["--chains", "2000", "--out", str(out),
                                                               "--no-progress"]) == 0
    return out / "report.html"


def test_report_filters_by_paper_and_verdict(browser, report):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d = browser
    d.get(report.as_uri())
    assert _console_errors(d) == []
    d.save_screenshot(str(SHOTS / "report-top.png"))
    rows = d.find_elements(By.CSS_SELECTOR, "table.claims tbody tr")
    assert _by_id(d, "shown").text == f"{len(rows)} of {len(rows)} claims shown"
    Select(_by_id(d, "paper")).select_by_value("baker")
    visible = [r for r in rows if r.is_displayed()]
    assert visible and all(r.get_attribute("data-paper") == "baker" for r in visible)
    assert _by_id(d, "shown").text == f"{len(visible)} of {len(rows)} claims shown"
    Select(_by_id(d, "verdict")).select_by_value("erratum")
    visible = [r for r in rows if r.is_displayed()]
    assert {r.get_attribute("data-verdict") for r in visible} == {"erratum"} and len(visible) == 2
    sections = [s for s in d.find_elements(By.CSS_SELECTOR, "section.claim") if s.is_displayed()]
    assert len(sections) == 2
    d.save_screenshot(str(SHOTS / "report-baker-errata.png"))
    d.execute_script("document.getElementById('baker.zv.printed_operator').scrollIntoView()")
    d.save_screenshot(str(SHOTS / "report-erratum-figure.png"))
    Select(_by_id(d, "paper")).select_by_value("all")
    Select(_by_id(d, "verdict")).select_by_value("all")
    d.execute_script("document.getElementById('vollmer.thm52.toy_constants').scrollIntoView()")
    d.save_screenshot(str(SHOTS / "report-own-figure.png"))
    assert _console_errors(d) == []


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    _browser()
    from _site import build_site

    return build_site(tmp_path_factory)


def test_reference_site_opens_and_its_api_page_links_to_the_engine(browser, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    d = browser
    d.get((site / "index.html").as_uri())
    assert _console_errors(d) == []
    assert "SG-MCMC theory workbench" in d.title
    captions = [c.get_attribute("textContent").strip() for c in d.find_elements(By.CSS_SELECTOR, ".caption-text")]
    assert {"User's guide", "Extending the workbench", "The mathematics", "API reference"} <= set(captions)
    d.save_screenshot(str(SHOTS / "site-index.png"))
    d.get((site / "api" / "simulate.html").as_uri())
    assert _console_errors(d) == []
    run = _by_id(d, "simulate.run")
    assert run.is_displayed() and "n_chains" in run.text
    d.execute_script("arguments[0].scrollIntoView()", run)
    d.save_screenshot(str(SHOTS / "site-api-simulate.png"))
    d.get((site / "search.html").as_uri() + "?q=exact_law")  # the search index works from files, offline
    WebDriverWait(d, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "ul.search li"))
    hits = [a.get_attribute("href") for a in d.find_elements(By.CSS_SELECTOR, "ul.search li a")]
    assert any(h.split("#")[-1] == "theory.exact_law" for h in hits), hits


@pytest.fixture(scope="module")
def atlas_page(tmp_path_factory) -> Path:
    _browser()
    import dataclasses

    from theory.atlas import evaluate_bound
    from theory.bounds.literature import DK_W2, VW_KL
    from verify.atlas_page import write_atlas_page

    small = ("gauss_p1", "regression_small")
    wrong = dataclasses.replace(DK_W2, key="test.too_small", title="A bound too small (planted)",
                                value=lambda c: 1e-4 * (c.step * c.p) ** 0.5, problems=small)
    results = [evaluate_bound(dataclasses.replace(b, problems=small)) for b in (DK_W2, VW_KL)]
    return write_atlas_page(results + [evaluate_bound(wrong)], tmp_path_factory.mktemp("atlas"), 1.0)


def test_atlas_page_renders_and_filters(browser, atlas_page):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    d = browser
    d.get(atlas_page.as_uri())
    assert _console_errors(d) == []
    sections = d.find_elements(By.CSS_SELECTOR, "section.claim")
    assert len(sections) == 3 and _by_id(d, "shown").text == "3"
    imgs = d.find_elements(By.CSS_SELECTOR, "section.claim img.fig")
    assert len(imgs) == 3 and all(d.execute_script("return arguments[0].naturalWidth", i) > 0 for i in imgs)
    d.save_screenshot(str(SHOTS / "atlas-top.png"))
    Select(_by_id(d, "status")).select_by_value("violations")
    visible = [s for s in sections if s.is_displayed()]
    assert len(visible) == 1 and "planted" in visible[0].text and _by_id(d, "shown").text == "1"
    d.save_screenshot(str(SHOTS / "atlas-violations.png"))
    assert _console_errors(d) == []
