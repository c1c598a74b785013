"""The claim registry: each claim pairs a closed form with a simulation and a statistical test.

A claim's ``run(settings)`` returns a :class:`ClaimResult` holding

* statistical checks (:mod:`verify.checks`: two-sided and one-sided z-tests with the s.e. across independent
  chains); the harness applies Holm's procedure to all of them, so the family-wise false-alarm rate of a run is at
  most ``alpha``;
* exact checks (enumeration, closed forms, identities), which pass or fail deterministically.

Verdicts (:mod:`verify.verdicts`): ``holds`` (no check rejected), ``fails`` (some check rejected: the report shows
the counter-example), ``out of scope`` (with the reason), ``error`` (the claim raised), and two for statements a
referee could read more than one way:

* ``holds as a bound`` ("holds as a bound, does not predict the exact behaviour"): the bound's checks hold, and a
  second part shows that the exact behaviour differs from what the bound predicts (``finding`` says how);
* ``depends on reading``: the statement holds under one reading of the paper and fails under another; each
  :class:`Reading` has its own evidence (the checks of that part) and its own registered verdict.

A claim the workbench has found to be wrong under every reasonable reading (an erratum) is registered with
``expected="fails"`` and its counter-example in ``erratum``; the checks that carry the counter-example are created
with ``expect="fail"``. A claim whose orderings (:class:`~verify.checks.OrderingCheck`) are neither shown nor
contradicted is ``inconclusive``; it is registered so (``expected="inconclusive"``) only with its ``finding``: the
effect, its z and the chains that would decide it. A run succeeds when every claim has its registered verdict and
every check its expected outcome, so errata, bounds and readings are regression-tested like everything else.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from simulate.validation import ParameterError

from .checks import BEHAVIOUR, BOUND, Check, ExactCheck, OneSidedCheck, OrderingCheck

#: The verdicts a claim can be registered with (``expected``).
VERDICT_KINDS = ("holds", "fails", "holds as a bound", "depends on reading", "inconclusive")

#: The verdicts a reading can be registered with.
READING_VERDICTS = ("holds", "fails", "inconclusive")


@dataclass
class ClaimResult:
    """What a claim's run returns: its checks, notes and figure.

    Parameters
    ----------
    checks : list of Check, OneSidedCheck or OrderingCheck
        The statistical checks; every one of them joins the run's Holm family.
    exact : list of ExactCheck
        Deterministic checks (enumeration, closed forms, identities), passed or failed outright.
    notes : list of str
        Sentences the report prints under the claim's table.
    figure : callable, optional
        ``figure(fig)`` draws the claim's own figure on a matplotlib figure; without it the report draws the
        checks as theory against simulation.
    seconds : float
        Filled by the harness: the claim's run time.
    compile_seconds : float
        Filled by the harness: the part of ``seconds`` a backend spent compiling (JAX; it does not grow with the
        chains, so ``--target-mde`` scales only the rest).
    error : str, optional
        Filled by the harness: the traceback when the claim raised (its verdict is then "error").
    """

    checks: list[Check | OneSidedCheck | OrderingCheck] = field(default_factory=list)
    exact: list[ExactCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figure: Callable | None = None  # figure(ax_or_fig) draws this claim's figure
    seconds: float = 0.0
    compile_seconds: float = 0.0
    error: str | None = None  # the traceback, when the claim raised (verdict "error")

    def add(self, *checks: Check | OneSidedCheck | OrderingCheck | ExactCheck) -> ClaimResult:
        """Append each check where it belongs: statistical ones to ``checks``, exact ones to ``exact``.

        Parameters
        ----------
        *checks : Check, OneSidedCheck, OrderingCheck or ExactCheck
            In order; the order of each list is the order of the report.

        Returns
        -------
        ClaimResult
            This result, so that ``return ClaimResult(notes=...).add(*checks)`` reads as one expression.
        """
        for c in checks:
            (self.exact if isinstance(c, ExactCheck) else self.checks).append(c)
        return self


@dataclass(frozen=True)
class Settings:
    """Run-wide settings, handed to every claim's run.

    Parameters
    ----------
    chains : int
        Independent chains per simulation (the standard errors are estimated across them).
    seed : int
        The run's base seed; a claim takes the seed of each simulation from :meth:`seed_for`.
    alpha : float
        Family-wise false-alarm level of the run's Holm family (0 < alpha < 1).
    progress : bool
        Show a progress bar.
    workers : int
        More than 1 (or a Dask ``scheduler`` address) runs the claims as tasks on Dask distributed workers
        (``verify.harness.run_claims``); every number is bit-identical to ``workers = 1``.
    scheduler : str, optional
        The address of an existing Dask scheduler.
    chains_by_claim : tuple of (str, int)
        (claim id, chains) pairs overriding ``chains`` for single claims (``--target-mde``).
    backend : str
        Where the claims' simulations run: "numpy" (bit for bit) or "jax" (``simulate.run(..., backend="jax")`` for
        every run of a claim, through ``simulate.runtime.backends.using_backend``; a run the backend does not cover,
        e.g. one with a step hook, runs on numpy and the claim's notes say so).

    Notes
    -----
    A claim runs with ``chains`` times its registered ``chains_factor`` (``verify.registry.Claim``; planned from its
    detectable deviation), unless ``chains_by_claim`` names it (:meth:`for_claim`).
    """

    chains: int = 10_000
    seed: int = 20161
    alpha: float = 0.01
    progress: bool = False
    workers: int = 1
    scheduler: str | None = None
    chains_by_claim: tuple[tuple[str, int], ...] = ()
    backend: str = "numpy"

    def for_claim(self, claim_id: str, chains_factor: float = 1.0) -> Settings:
        """These settings with the chain count chosen for one claim.

        Parameters
        ----------
        claim_id : str
            The claim's id.
        chains_factor : float
            The claim's registered multiple of ``chains`` (``Claim.chains_factor``, :func:`verify.api.claim`).

        Returns
        -------
        Settings
            ``chains`` replaced by the claim's entry of ``chains_by_claim`` (and that table emptied); else by
            ``round(chains * chains_factor)`` (at least 4) when the factor is not 1; else these settings unchanged.
        """
        for cid, chains in self.chains_by_claim:
            if cid == claim_id:
                return dataclasses.replace(self, chains=chains, chains_by_claim=())
        if chains_factor != 1.0:
            return dataclasses.replace(self, chains=max(4, round(self.chains * chains_factor)), chains_by_claim=())
        return self

    def seed_for(self, key: str) -> int:
        """The seed of one simulation, the same whichever claims a run selects.

        Parameters
        ----------
        key : str
            A name of the simulation, unique within the claim module (e.g. ``"mypkg.sgld.n10"``).

        Returns
        -------
        int
            A seed in [0, 2^63) determined by the base seed and ``key`` alone.
        """
        return (self.seed * 1_000_003 + zlib.crc32(key.encode())) % (2**63)


@dataclass(frozen=True)
class Reading:
    """One reading of a statement the paper leaves open (a claim registered as "depends on reading").

    Parameters
    ----------
    name : str
        The reading's name; the checks that are its evidence name it as their ``part``.
    text : str
        What this reading takes the statement to mean.
    expected : str
        The verdict registered for the statement under this reading: "holds", "fails" or "inconclusive" (its
        orderings neither shown nor contradicted at the default chains; the claim's finding says why).

    Raises
    ------
    simulate.validation.ParameterError
        For an empty name or text, or another ``expected``.
    """

    name: str
    text: str
    expected: str

    def __post_init__(self) -> None:
        if not self.name or not self.text:
            raise ParameterError(f"a reading needs a name and a text, got {self.name!r}, {self.text!r}")
        if self.expected not in READING_VERDICTS:
            raise ParameterError(f"reading {self.name!r}: expected must be one of {READING_VERDICTS}, got "
                                 f"{self.expected!r}")


@dataclass(frozen=True)
class Claim:
    """A registered claim: a paper's statement, where it is printed, the run that checks it and its expected verdict.

    Parameters
    ----------
    id : str
        Unique id, ``paper.section.what`` (a user's own: a prefix of their package).
    paper : str
        The paper (or the user's package) the claim belongs to; ``--paper`` selects by it.
    source : str
        Where the statement is printed: paper, section and equation.
    statement : str
        The statement, in words.
    family : str
        Claims of one family share a figure in the report.
    run : callable
        ``run(settings) -> ClaimResult``.
    out_of_scope : str, optional
        Why the claim is not checked (its verdict is then "out of scope").
    expected : str
        The registered verdict, one of :data:`VERDICT_KINDS`.
    erratum : str, optional
        What is wrong in the paper, for ``expected="fails"``.
    finding : str, optional
        What the workbench found, for "holds as a bound", "depends on reading" and "inconclusive" (for the last: the
        effect, its z and the chains that would decide it).
    readings : tuple of Reading
        For "depends on reading": at least two, with different verdicts.
    chains_factor : float
        The claim runs with ``Settings.chains`` times this (default 1): planned from its detectable deviation, so
        that a claim whose checks are cheap but weak gets the chains that make them strong, and a run at fewer
        chains (tests) scales it down with the rest.

    Raises
    ------
    simulate.validation.ParameterError
        When the registered verdict lacks what it needs (an erratum, a finding, two readings that differ), or the
        chains factor is not finite and positive.
    """

    id: str
    paper: str
    source: str  # paper and equation
    statement: str
    family: str  # claims of one family share a figure in the report
    run: Callable[[Settings], ClaimResult]
    out_of_scope: str | None = None
    expected: str = "holds"  # one of VERDICT_KINDS
    erratum: str | None = None  # what is wrong in the paper, when expected == "fails"
    finding: str | None = None  # what the workbench found: "holds as a bound", "depends on reading", "inconclusive"
    readings: tuple[Reading, ...] = ()  # for "depends on reading": at least two, with different verdicts
    chains_factor: float = 1.0  # runs with Settings.chains times this

    def __post_init__(self) -> None:
        if not (isinstance(self.chains_factor, (int, float)) and 0 < self.chains_factor < float("inf")):
            raise ParameterError(f"claim {self.id}: chains_factor must be finite and > 0, got {self.chains_factor!r}")
        if self.expected not in VERDICT_KINDS:
            raise ParameterError(f"claim {self.id}: expected must be one of {VERDICT_KINDS}, got {self.expected!r}")
        if self.expected == "fails" and not self.erratum:
            raise ParameterError(f"claim {self.id}: an expected failure needs its erratum text")
        if self.expected in ("holds as a bound", "depends on reading", "inconclusive") and not self.finding:
            raise ParameterError(f"claim {self.id}: expected {self.expected!r} needs its finding text")
        if self.expected == "depends on reading":
            names = [r.name for r in self.readings]
            if len(names) < 2 or len(set(names)) != len(names):
                raise ParameterError(f"claim {self.id}: 'depends on reading' needs at least two readings with "
                                     f"different names, got {names}")
            if len({r.expected for r in self.readings}) < 2:
                raise ParameterError(f"claim {self.id}: the readings must differ in their verdicts (e.g. one "
                                     "holds, one fails); a statement true under every reading is registered as 'holds'")
        elif self.readings:
            raise ParameterError(f"claim {self.id}: readings are for expected='depends on reading' only")

    @property
    def parts(self) -> tuple[str, ...]:
        """The check parts this claim's result may name: BOUND and BEHAVIOUR, or the readings' names."""
        if self.expected == "holds as a bound":
            return (BOUND, BEHAVIOUR)
        return tuple(r.name for r in self.readings)


REGISTRY: dict[str, Claim] = {}
_CACHES: list[Callable] = []


def simulation_cache(func: Callable) -> Callable:
    """Memoize a simulation that several claims of one run share.

    Parameters
    ----------
    func : callable
        The simulation, a function of hashable arguments (e.g. the seed).

    Returns
    -------
    callable
        ``func`` memoized; every cache is cleared at the start of a run, so a run never reuses numbers from code
        that has changed since (e.g. a planted bug).
    """
    from functools import cache

    cached = cache(func)
    _CACHES.append(cached.cache_clear)
    return cached


def clear_caches() -> None:
    for clear in _CACHES:
        clear()


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (what :func:`verify.api.claim` does for a decorated run function).

    Parameters
    ----------
    claim : Claim
        The claim.

    Returns
    -------
    Claim
        The same claim.

    Raises
    ------
    simulate.validation.ParameterError
        When its id is taken, naming both modules.
    """
    if claim.id in REGISTRY:
        other = REGISTRY[claim.id].run.__module__
        raise ParameterError(f"claim id {claim.id!r} of {claim.run.__module__} collides with the claim of {other}; "
                             "choose another id (a prefix of your package's name keeps them apart)")
    REGISTRY[claim.id] = claim
    return claim


#: The entry-point group through which installed packages add claim modules (pyproject.toml:
#: ``[project.entry-points."sgmcmc_workbench.claims"] my_claims = "my_pkg.my_claims"``).
ENTRY_POINT_GROUP = "sgmcmc_workbench.claims"

#: Errors met while loading entry points, as (entry point, message); reported, never fatal to other claims.
ENTRY_POINT_ERRORS: list[tuple[str, str]] = []
_ENTRY_POINTS_LOADED = False


def load_all() -> dict[str, Claim]:
    """Import every built-in claim module and every module registered under :data:`ENTRY_POINT_GROUP` (they
    register themselves) and return the registry."""
    global _ENTRY_POINTS_LOADED
    from . import claims  # noqa: F401

    if not _ENTRY_POINTS_LOADED:
        _ENTRY_POINTS_LOADED = True
        from importlib.metadata import entry_points

        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                ep.load()
            except Exception as e:  # noqa: BLE001 - a broken third-party module must not stop the others
                ENTRY_POINT_ERRORS.append((f"{ep.name} = {ep.value}", f"{type(e).__name__}: {e}"))
    return REGISTRY


def load_modules(modules: list[str] | None) -> list[str]:
    """Import user claim modules by dotted name (``--module``); a module that does not import raises ParameterError
    naming it. Returns the names imported."""
    import importlib

    load_all()
    done = []
    for name in modules or []:
        if not isinstance(name, str) or not name:
            raise ParameterError(f"--module must be a dotted module name, got {name!r}")
        try:
            importlib.import_module(name)
        except ParameterError:
            raise
        except Exception as e:  # noqa: BLE001 - any import failure is reported with the module's name
            raise ParameterError(f"--module {name!r} could not be imported: {type(e).__name__}: {e}") from None
        done.append(name)
    return done


def claims_of_modules(modules: list[str]) -> list[Claim]:
    """The registered claims whose run function lives in one of ``modules`` or a submodule of one.

    Parameters
    ----------
    modules : list of str
        Dotted module names, already imported (:func:`load_modules`).

    Returns
    -------
    list of Claim
        In registration order; empty when the modules register no claim.
    """
    under = tuple(modules)
    return [c for c in REGISTRY.values()
            if c.run.__module__ in under or c.run.__module__.startswith(tuple(m + "." for m in under))]


def select(papers: list[str] | None = None, ids: list[str] | None = None) -> list[Claim]:
    reg = load_all()
    known_papers = sorted({c.paper for c in reg.values()})
    for p in papers or []:
        if p not in known_papers:
            raise ParameterError(f"paper must be one of {known_papers}, got {p!r}")
    for i in ids or []:
        if i not in reg:
            raise ParameterError(f"unknown claim id {i!r}; list them with `python -m verify --list`")
    out = [c for c in reg.values() if (not papers or c.paper in papers) and (not ids or c.id in ids)]
    return out


__all__ = ["ENTRY_POINT_GROUP", "READING_VERDICTS", "REGISTRY", "VERDICT_KINDS", "Check", "Claim", "ClaimResult",
           "ExactCheck", "OneSidedCheck", "OrderingCheck", "Reading", "Settings",
           "claims_of_modules", "clear_caches", "load_all", "load_modules", "register", "select", "simulation_cache"]
