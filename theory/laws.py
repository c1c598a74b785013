"""The public door to exact laws: a simulator estimator or integrator class gets its law with :func:`law_for`.

A sampler of the workbench is an integrator composed with a gradient estimator (:class:`simulate.Sampler`); the theory
of a sampler is assembled from the law of each part. A *law* is a function ``law(obj, ctx)`` of the simulator object
(an estimator or an integrator instance) and of the route's context; what it returns depends on the route:

``"affine"``
    the exact engine (:func:`theory.exact_law`) on models with an affine gradient: ``ctx`` is a
    :class:`theory.linear_gaussian.contract.Context` and the law an
    :class:`~theory.linear_gaussian.contract.EstimatorLaw` or :class:`~theory.linear_gaussian.contract.IntegratorLaw`
    (``docs/add_a_sampler.md`` derives one end to end).

Further routes (e.g. a grid law for non-Gaussian one-dimensional models) register through the same decorator with
their own route name; the registry treats every route alike. Every built-in law of the workbench is registered here
by the same decorator a user's module calls, so a user's sampler is a first-class citizen: ``exact_law``, the
brute-force referee and the shared sampler tests find it by its class.

Lookup is by exact type: a subclass with other semantics must register its own law (a law is never guessed from a base
class). A class that provably has no law on a route can say why with :func:`no_law`; :func:`law_of` then raises that
reason instead of "no law registered".

Each registration may carry ``examples``: a function ``examples(model, settings)`` returning configured instances
(:class:`Example`) on which the checkers (the shared sampler tests, the brute-force referee, the engine's claims in
``python -m verify``) hold the law to the simulator. The checker chooses the scale (:class:`ExampleSettings`: a referee
that enumerates every minibatch asks for tiny ones); the law's author says how to build instances at that scale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np

from simulate.validation import ParameterError

#: The kinds of simulator objects a law can be registered for.
OBJECT_KINDS = ("estimator", "integrator")


@dataclass(frozen=True, eq=False)
class ExampleSettings:
    """The scale at which a checker asks a registration for example instances.

    Parameters
    ----------
    n : int
        Minibatch size (n <= N / 2 on every model a checker uses).
    n_anchor : int
        Size of an anchor minibatch (vrSG-MCMC's n1), n <= n_anchor <= N.
    epoch : int
        Steps between anchor refreshes (SVRG, vrSG-MCMC's m).
    period : int
        A short period in steps: a minibatch reused for K steps, a momentum redrawn every L steps.
    centre : ndarray or None
        (d,): a point near the posterior at which estimators that need one are centred (a control variate's
        theta_hat); None: the registration picks one (the built-ins: the posterior mean plus 0.05).
    """

    n: int = 2
    n_anchor: int = 4
    epoch: int = 2
    period: int = 2
    centre: np.ndarray | None = None


@dataclass(frozen=True)
class Example:
    """One configured instance of a registered class, as the checkers use it.

    Parameters
    ----------
    label : str
        Human-readable name; the checkers' reports and random seeds are keyed by it, so keep it stable.
    obj : object
        The estimator or integrator instance.
    key : str or None
        Short identifier (letters, digits, underscores) for an integrator: the engine's claims are named
        ``engine.<model>.<key>``. None: derived from the label.
    h_scale : float
        For an integrator: the step size at which it is checked, as h L (L the Lipschitz constant of the model's
        gradient); must lie below the integrator's own stability bound. Ignored for estimators.
    with_estimators : tuple of type or None
        For an integrator: the estimator classes its statistical checks pair it with (None: every registered
        estimator). E.g. an update without injected noise is only a sampler beside SAGA's table. The brute-force
        referee, which compares exactly, pairs it with every enumerable estimator regardless.
    """

    label: str
    obj: object
    key: str | None = None
    h_scale: float = 0.6
    with_estimators: tuple[type, ...] | None = None

    @property
    def name(self) -> str:
        """``key``, else the label in lower case with non-alphanumerics as underscores."""
        if self.key is not None:
            return self.key
        return "".join(c if c.isalnum() else "_" for c in self.label.lower()).strip("_")


ExamplesFunction = Callable[[object, ExampleSettings], Sequence[Example]]


@dataclass(frozen=True)
class Registration:
    """One entry of the registry: the class, its route, its law (or the reason it has none) and its examples.

    Parameters
    ----------
    cls : type
        The simulator class (exact type).
    route : str
        The route the law answers on.
    kind : str
        "estimator" or "integrator" (read from the class: ``draw`` / ``apply``, or ``update`` / ``noise_matrix``).
    law : callable or None
        ``law(obj, ctx)``; None where the class has no law on the route.
    examples : callable or None
        ``examples(model, settings) -> Sequence[Example]``.
    reason : str or None
        Why there is no law (:func:`theory.no_law`).
    """

    cls: type
    route: str
    kind: str
    law: Callable | None
    examples: ExamplesFunction | None = None
    reason: str | None = None

    def instances(self, model, settings: ExampleSettings | None = None) -> tuple[Example, ...]:
        """The registration's configured instances on ``model``, at the scale a checker asks for.

        Parameters
        ----------
        model : Model
            The model the checker runs on.
        settings : ExampleSettings, optional
            The scale (default :class:`ExampleSettings`).

        Returns
        -------
        tuple of Example
            The registered ``examples(model, settings)``; where none were registered, the class built with no
            arguments when it allows that, else none.

        Raises
        ------
        ParameterError
            When an example's object is not an instance of exactly the registered class.
        """
        settings = ExampleSettings() if settings is None else settings
        if self.examples is not None:
            out = tuple(self.examples(model, settings))
        else:
            try:
                out = (Example(self.cls.__name__, self.cls()),)
            except TypeError:
                out = ()
        for ex in out:
            if type(ex.obj) is not self.cls:
                raise ParameterError(f"examples of {self.cls.__name__} must be {self.cls.__name__} instances, got "
                                     f"{type(ex.obj).__name__} ({ex.label!r})")
        return out


_REGISTRY: dict[str, dict[type, Registration]] = {}


def kind_of(cls: type) -> str:
    """Whether a simulator class is a gradient estimator or an integrator (:mod:`simulate.contracts`).

    Parameters
    ----------
    cls : type
        The class.

    Returns
    -------
    str
        "estimator" for a class with ``draw`` and ``apply``, "integrator" for one with ``update`` and
        ``noise_matrix``.

    Raises
    ------
    ParameterError
        If ``cls`` is not a class, or is neither.
    """
    if not isinstance(cls, type):
        raise ParameterError(f"cls must be a simulator estimator or integrator class, got {cls!r}")
    if callable(getattr(cls, "draw", None)) and callable(getattr(cls, "apply", None)):
        return "estimator"
    if callable(getattr(cls, "update", None)) and callable(getattr(cls, "noise_matrix", None)):
        return "integrator"
    raise ParameterError(f"{cls.__name__} is neither a gradient estimator (draw, apply) nor an integrator (update, "
                         "noise_matrix) of simulate.contracts")


def _check_route(route) -> str:
    if not isinstance(route, str) or not route:
        raise ParameterError(f"route must be a non-empty string (e.g. 'affine'), got {route!r}")
    return route


def _add(entry: Registration) -> None:
    table = _REGISTRY.setdefault(entry.route, {})
    old = table.get(entry.cls)
    if old is not None and not _same_source(old, entry):
        raise ParameterError(f"{entry.cls.__name__} already has a law on route {entry.route!r} "
                             f"({_describe(old)}); a class has one law per route (a subclass with other semantics "
                             "registers its own)")
    table[entry.cls] = entry


def _describe(entry: Registration) -> str:
    if entry.law is None:
        return f"no law: {entry.reason}"
    return f"{entry.law.__module__}.{entry.law.__qualname__}"


def _same_source(a: Registration, b: Registration) -> bool:
    """The same registration read again (a module imported twice, e.g. reloaded)."""
    return _describe(a) == _describe(b)


def law_for(cls: type, route: str = "affine", *, examples: ExamplesFunction | None = None) -> Callable:
    """Register the decorated function ``law(obj, ctx)`` as the law of the simulator class ``cls`` on ``route``.

    Parameters
    ----------
    cls : type
        A gradient estimator or integrator class of the simulator (its exact type: subclasses are not covered).
    route : str
        The route the law answers on: "affine" (the exact engine, :func:`theory.exact_law`), or another route's name.
    examples : callable, optional
        ``examples(model, settings) -> Sequence[Example]``: configured instances the shared checks hold the law to (see
        the module docstring). Without it a class that builds with no arguments is checked as ``cls()``.

    Returns
    -------
    callable
        A decorator that registers the function and returns it unchanged.

    Raises
    ------
    ParameterError
        If ``cls`` is not an estimator or integrator class, ``route`` is not a non-empty string, or ``cls`` already
        has a different law on ``route``.

    Examples
    --------
    >>> @law_for(MyIntegrator)                                       # doctest: +SKIP
    ... def my_integrator(integ, ctx):
    ...     return IntegratorLaw(...)
    """
    kind = kind_of(cls)
    route = _check_route(route)
    if examples is not None and not callable(examples):
        raise ParameterError(f"examples must be a function (model, settings) -> examples, got {examples!r}")

    def register(law: Callable) -> Callable:
        if not callable(law):
            raise ParameterError(f"law_for({cls.__name__}) decorates a function law(obj, ctx), got {law!r}")
        _add(Registration(cls, route, kind, law, examples))
        return law

    return register


def no_law(cls: type, reason: str, route: str = "affine") -> None:
    """Record that ``cls`` has no law on ``route``, and why: :func:`law_of` raises ``reason``.

    Parameters
    ----------
    cls : type
        A gradient estimator or integrator class of the simulator.
    reason : str
        The mathematical reason (e.g. "the preconditioner is updated by g * g: the step is not affine in the state").
    route : str
        The route.

    Raises
    ------
    ParameterError
        If ``reason`` is empty, or ``cls`` already has a law on ``route``.
    """
    kind = kind_of(cls)
    if not isinstance(reason, str) or not reason.strip():
        raise ParameterError("reason must say why the class has no law (a non-empty string)")
    _add(Registration(cls, _check_route(route), kind, None, reason=reason.strip()))


def registration(obj, route: str = "affine") -> Registration:
    """The registration of ``obj``'s exact type (or of the class ``obj``) on ``route``.

    Parameters
    ----------
    obj : object or type
        A simulator estimator or integrator, or its class.
    route : str, default "affine"
        The route.

    Returns
    -------
    Registration
        Its law (or the reason it has none) and its examples.

    Raises
    ------
    ParameterError
        Naming the class, the route and the classes known on it, if there is none.
    """
    route = _check_route(route)
    cls = obj if isinstance(obj, type) else type(obj)
    entry = _REGISTRY.get(route, {}).get(cls)
    if entry is None:
        known = ", ".join(sorted(c.__name__ for c in registered(route))) or "none"
        routes = [r for r, t in _REGISTRY.items() if cls in t and r != route]
        elsewhere = f"; {cls.__name__} has a law on {routes}" if routes else ""
        raise ParameterError(f"{cls.__name__}: no law registered on route {route!r} (known on {route!r}: {known}"
                             f"{elsewhere}); give it one with theory.law_for({cls.__name__}, route={route!r}), "
                             "docs/add_a_sampler.md")
    return entry


def law_of(obj, route: str = "affine") -> Callable:
    """The law registered for ``obj``'s exact type on ``route``: a function ``law(obj, ctx)``.

    Parameters
    ----------
    obj : object
        A simulator estimator or integrator instance (or its class).
    route : str
        The route, default "affine" (the exact engine).

    Returns
    -------
    callable
        The registered law.

    Raises
    ------
    ParameterError
        Naming the class, the route and the classes known on that route, when none is registered; with the recorded
        reason when the class has none (:func:`no_law`).
    """
    entry = registration(obj, route)
    if entry.law is None:
        raise ParameterError(f"{entry.cls.__name__} has no law on route {route!r}: {entry.reason}")
    return entry.law


def registered(route: str = "affine", kind: str | None = None) -> tuple[type, ...]:
    """The classes with a law on ``route`` (those recorded by :func:`no_law` left out), in registration order.

    Parameters
    ----------
    route : str
        The route.
    kind : {"estimator", "integrator"}, optional
        Only classes of this kind.

    Returns
    -------
    tuple of type

    Raises
    ------
    ParameterError
        If ``kind`` is not one of :data:`theory.laws.OBJECT_KINDS`.
    """
    route = _check_route(route)
    if kind is not None and kind not in OBJECT_KINDS:
        raise ParameterError(f"kind must be one of {OBJECT_KINDS} or None, got {kind!r}")
    return tuple(c for c, e in _REGISTRY.get(route, {}).items()
                 if e.law is not None and (kind is None or e.kind == kind))


@contextmanager
def law_replaced(cls: type, law: Callable, route: str = "affine") -> Iterator[None]:
    """Give ``cls`` another law on ``route`` inside a ``with`` block (a planted bug, an alternative derivation), and
    restore the registered one on exit (its examples are kept).

    Parameters
    ----------
    cls : type
        A class registered on ``route``.
    law : callable
        ``law(obj, ctx)`` used meanwhile.
    route : str
        The route.

    Yields
    ------
    None

    Raises
    ------
    ParameterError
        If ``cls`` has no registration on ``route``.
    """
    old = registration(cls, route)
    _REGISTRY[route][cls] = replace(old, law=law, reason=None)
    try:
        yield
    finally:
        _REGISTRY[route][cls] = old


__all__ = ["OBJECT_KINDS", "Example", "ExampleSettings", "Registration", "kind_of", "law_for", "law_of", "law_replaced",
           "no_law", "registered", "registration"]
