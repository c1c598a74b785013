"""A pytest plugin (registered through the ``pytest11`` entry point): run claims as tests of a user's own suite.

Every test that takes the fixture ``verify_claim`` is repeated once per claim of the modules given with
``--verify-module`` (repeatable) or the ini option ``verify_modules``; all those claims run once per pytest session
and their statistical checks form one Holm family, as in ``python -m verify``. A claim whose verdict is not its
registered expectation fails its test with the counter-example (the rejected checks, or the failed exact checks).

    # pytest.ini / pyproject [tool.pytest.ini_options]:  verify_modules = my_pkg.my_claims
    def test_claim(verify_claim):
        verify_claim.assert_as_expected()

Options: ``--verify-chains``, ``--verify-seed``, ``--verify-alpha`` (the defaults of ``python -m verify``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from .checks import OrderingCheck, format_z, vanished_se_note
from .registry import REGISTRY, Claim, ClaimResult, Settings, claims_of_modules, load_modules
from .verdicts import as_expected, unexpected_checks

#: What a test that takes ``verify_claim`` says when no claim module is configured (it fails: a silent skip would
#: leave a suite green that tests nothing).
NOT_CONFIGURED = ("no claim module is configured for the fixture verify_claim: name yours in the pytest "
                  "configuration (pytest.ini: `verify_modules = my_pkg.my_claims`; pyproject.toml, "
                  "[tool.pytest.ini_options]: `verify_modules = [\"my_pkg.my_claims\"]`) or on the command line "
                  "(`--verify-module my_pkg.my_claims`)")


def pytest_addoption(parser) -> None:
    group = parser.getgroup("sgmcmc-workbench", "claims as tests (verify.pytest_plugin)")
    group.addoption("--verify-module", action="append", default=[], metavar="MODULE",
                    help="a claim module to run as tests of the fixture verify_claim (repeatable)")
    group.addoption("--verify-chains", type=int, default=Settings.chains, help="chains per simulation")
    group.addoption("--verify-seed", type=int, default=Settings.seed, help="base seed")
    group.addoption("--verify-alpha", type=float, default=Settings.alpha, help="family-wise false-alarm level")
    parser.addini("verify_modules", "claim modules run as tests of the fixture verify_claim", type="linelist",
                  default=[])


def _modules(config) -> list[str]:
    return list(config.getini("verify_modules")) + list(config.getoption("verify_module"))


def _claims(config) -> list[str]:
    """Ids of the claims registered by the configured modules, in registration order."""
    mods = _modules(config)
    load_modules(mods)
    return [c.id for c in claims_of_modules(mods)] if mods else []


def pytest_generate_tests(metafunc) -> None:
    if "verify_claim" in metafunc.fixturenames:
        ids = _claims(metafunc.config)
        if not ids:  # one test that fails saying what to configure, where pytest would skip an empty parameter set
            mods = _modules(metafunc.config)
            why = (f"the claim modules {mods} register no claims (a claim module registers its claims with "
                   "verify.api.claim when it is imported)") if mods else NOT_CONFIGURED
            metafunc.parametrize("verify_claim", [why], ids=["no-claims-configured"], indirect=True)
            return
        metafunc.parametrize("verify_claim", ids, ids=ids, indirect=True)


@dataclass
class ClaimOutcome:
    """One claim's result in this session's Holm family."""

    claim: Claim
    result: ClaimResult | None
    verdict: str

    def counter_example(self) -> str:
        r = self.result
        if r is None:
            return "no result"
        if r.error:
            return r.error
        lines = [f"{c.label}: theory {c.theory:.6g}, simulation {c.estimate:.6g} +- {c.se:.3g} (z = {format_z(c.z)}, "
                 f"p = {c.p:.3g})" + (f"; {why}" if (why := vanished_se_note(c.theory, c.estimate, c.se)) else "")
                 for c in r.checks if c.rejected]
        lines += [f"{e.label}: {e.detail}" for e in r.exact if not e.passed]
        lines += [f"{c.label}: {c.decision_text()}" for c in r.checks if isinstance(c, OrderingCheck)
                  and c.outcome == "inconclusive"]
        lines += [f"UNEXPECTED: {k.label} registered to {k.expect}, outcome {k.outcome}"
                  for k in unexpected_checks(self.claim, r)]
        return "\n".join(lines) or "every check passed"

    def assert_as_expected(self) -> None:
        """Fail with the counter-example unless the verdict is the registered expectation and every check has its
        expected outcome (:func:`verify.verdicts.as_expected`)."""
        if not as_expected(self.claim, self.result):
            pytest.fail(f"claim {self.claim.id} [{self.claim.source}]: verdict {self.verdict!r}, registered as "
                        f"{self.claim.expected!r}\n{self.counter_example()}", pytrace=False)


@pytest.fixture(scope="session")
def verify_outcomes(request) -> dict[str, ClaimOutcome]:
    """Every configured claim, run once with one Holm family across all of them."""
    from .harness import run_claims
    from .report import verdict

    cfg = request.config
    settings = Settings(chains=cfg.getoption("verify_chains"), seed=cfg.getoption("verify_seed"),
                        alpha=cfg.getoption("verify_alpha"))
    claims = [REGISTRY[cid] for cid in _claims(cfg)]
    return {c.id: ClaimOutcome(c, r, verdict(c, r)) for c, r in run_claims(claims, settings)}


@pytest.fixture
def verify_claim(request) -> ClaimOutcome:
    """The outcome of one claim (the test is parametrized over the configured claims); fails, saying what to
    configure, when no claim module is configured or the configured ones register no claims."""
    outcomes = request.getfixturevalue("verify_outcomes")
    if request.param not in outcomes:
        pytest.fail(request.param, pytrace=False)
    return outcomes[request.param]
