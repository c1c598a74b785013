"""The public law contract: which function gives the law of a simulator object on which route of the theory.

A *route* is a way of computing a sampler's law exactly: ``"affine"`` (the exact engine, :func:`theory.exact_law`)
and ``"grid"`` (the discretised transition kernel of :func:`theory.grid_law`). For every simulator class (an
estimator or an integrator) a route may hold one function ``law(obj, ctx)`` that reads the object and returns what
that route needs (on the grid route: the law of the gradient estimate at the grid points, or the conditional law of
the next state given the state and the gradient). A user's own estimator or integrator gets a law the same way the
built-in ones do::

    from theory.laws import law_for

    @law_for(MyEstimator, route="grid")
    def my_estimator_law(est, ctx):
        ...

Lookup is by exact type: a subclass with other semantics must be registered, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable

from simulate.validation import ParameterError

#: route -> {simulator class -> law function}.
LAWS: dict[str, dict[type, Callable]] = {}


def law_for(cls: type, route: str = "affine") -> Callable[[Callable], Callable]:
    """Register the decorated ``law(obj, ctx)`` as the law of objects of exactly type ``cls`` on ``route``.

    Parameters
    ----------
    cls : type
        The simulator class (an estimator or an integrator).
    route : str
        The route of the theory the law serves ("affine", "grid", ...).

    Returns
    -------
    Callable
        The decorator; it returns the function unchanged.

    Raises
    ------
    ParameterError
        If ``cls`` is not a class or ``route`` is not a non-empty string.
    """
    if not isinstance(cls, type):
        raise ParameterError(f"cls must be a class, got {cls!r}")
    if not isinstance(route, str) or not route:
        raise ParameterError(f"route must be a non-empty string, got {route!r}")

    def register(fn: Callable) -> Callable:
        LAWS.setdefault(route, {})[cls] = fn
        return fn

    return register


def law_of(obj, route: str) -> Callable:
    """The law function registered for ``type(obj)`` on ``route``.

    Parameters
    ----------
    obj : object
        A simulator object (an estimator or an integrator).
    route : str
        The route of the theory.

    Returns
    -------
    Callable
        ``law(obj, ctx)`` as registered with :func:`law_for`.

    Raises
    ------
    ParameterError
        Naming the class, the route and the classes known on it, when none is registered.
    """
    table = LAWS.get(route, {})
    fn = table.get(type(obj))
    if fn is None:
        known = ", ".join(sorted(c.__name__ for c in table)) or "none"
        raise ParameterError(f"{type(obj).__name__}: no law registered on the route {route!r} (known classes on it: "
                             f"{known}); register one with theory.laws.law_for({type(obj).__name__}, route={route!r})")
    return fn


def registered(route: str) -> tuple[type, ...]:
    """The classes with a law on ``route``, sorted by name.

    Parameters
    ----------
    route : str
        The route of the theory.

    Returns
    -------
    tuple of type
        The registered classes (empty for an unknown route).
    """
    return tuple(sorted(LAWS.get(route, {}), key=lambda c: c.__name__))


__all__ = ["LAWS", "law_for", "law_of", "registered"]
