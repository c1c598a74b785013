"""The mean-square stability limit in h as a certified bracket (new).

h* = inf{h > 0: rho(T(h)) >= 1}, T(h) the period's second-moment map of the sampler at step size h (:mod:`.solve`).
Each trial h is one solve of X - T(h)(X) = I (the assembled route: one LU factorisation; the operator route:
:func:`.krylov.krylov_solve`), read through the Collatz-Wielandt bounds of :mod:`.solve`:

* X > 0 and the bounds give rho < 1: h is certified stable;
* otherwise h is taken as unstable; at the final upper end this is certified by X < 0 (then rho > 1 by the same
  bounds), or by rho(Phi)^2 >= 1 for the period's mean matrix Phi (rho(T) >= rho(Phi)^2; this is how a complex pair
  of equal modulus crossing the unit circle, e.g. SGHMC with the full gradient, is certified), or else by an
  eigenvalue computation (:func:`.solve.radius`: dense LAPACK or Arnoldi for the largest real part).

The search needs no eigenvalues. s(h) = 1 / tr X(h) is positive where the chain is stable, vanishes at h* (tr X has a
simple pole there: X = (I - T)^{-1} I has the term <u, I> v / (1 - rho) with u, v the PSD Perron eigenvectors of T and
its adjoint) and is negative just beyond, smoothly. The bracket is found from the sampler's own h by doubling it (past
two stable trials, just beyond the zero of the parabola s(h) = h (A - B h) through them; halving where the first
trial is unstable), then shrunk by Brent's method on s (inverse quadratic interpolation, superlinear where s is
smooth, safeguarded by bisection), whose last sign change among the trials is the bracket: about a dozen solves,
none of which depends on the conditioning.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.optimize import brentq

from simulate.validation import ParameterError, check_real

from .solve import AssembledSystem, blas_threads, collatz_wielandt, mean_radius, radius

#: The bracket search doubles h at most this many times, and halves it at most :data:`MAX_HALVINGS` times.
MAX_DOUBLINGS, MAX_HALVINGS = 40, 60
#: Bisections by the computed spectral radius where the certificates leave the bracket wider than rtol.
MAX_NARROWINGS = 60


class StabilityBracket(NamedTuple):
    """lo < h* <= hi with hi - lo <= rtol hi: rho(T(lo)) <= ``rho_lo`` < 1 (Collatz-Wielandt, certified; or the
    spectral radius computed, where the bounds could not place lo: :func:`_narrowed`) and
    rho(T(hi)) >= 1, shown by ``certificate``: "collatz-wielandt" (rho >= ``rho_hi`` > 1), "mean" (rho >=
    rho(Phi)^2 = ``rho_hi`` >= 1) or "eigenvalue" (rho = ``rho_hi`` computed); ``solves`` counts the linear solves.
    ``hi`` is inf (certificate "none") when every h up to 2^40 times the sampler's was stable."""

    lo: float
    hi: float
    rho_lo: float
    rho_hi: float
    certificate: str
    solves: int


class _Probe(NamedTuple):
    h: float
    stable: bool
    score: float  # 1 / tr X (positive when stable, negative beyond h*); nan where no X was computed
    rho_hi: float  # the Collatz-Wielandt upper bound on rho (stable) or nan
    X: np.ndarray | None
    Y: np.ndarray | None  # X - T(X), recomputed from T


def _probe(law, h: float) -> _Probe:
    K = law.build(h)
    D = K.layout.D
    with blas_threads(K):
        if law.explicit:
            system = AssembledSystem.of(K)
            if system.lu is None:
                return _Probe(h, False, 0.0, np.nan, None, None)
            X, Y, bounds = system.identity_solution(D)
        else:
            from .krylov import Lyapunov, _operators, krylov_solve

            T, _, Phi = _operators(K)
            lyap = Lyapunov(Phi)
            if lyap.mean_radius >= 1.0:
                return _Probe(h, False, np.nan, np.nan, None, None)
            X, r, ok = krylov_solve(T, lyap, np.eye(D), 1e-6)
            Y = np.eye(D) - r
            bounds = collatz_wielandt(X, Y) if ok else None
    tr = float(np.trace(X))
    score = 1.0 / tr if np.isfinite(tr) and tr != 0.0 else np.nan
    stable = bounds is not None and bounds[1] < 1.0
    return _Probe(h, stable, abs(score) if stable else -abs(score), bounds[1] if stable else np.nan, X, Y)


def _guess(p: _Probe, q: _Probe) -> float | None:
    """h* of the model s(h) = h (A - B h) through two stable trials (s vanishes at h = 0, where T = I, and at h*)."""
    if not (np.isfinite(p.score) and np.isfinite(q.score)) or p.h == q.h:
        return None
    B = (p.score / p.h - q.score / q.h) / (q.h - p.h)
    A = p.score / p.h + B * p.h
    return A / B if B > 0 and A > 0 else None


def _initial(law, probe) -> tuple[_Probe, _Probe | None, int]:
    """(stable end, unstable end or None when none was found, solves): from the sampler's h, doubling until a trial
    is unstable (past two stable trials: just beyond the h* of :func:`_guess`, at most doubling), or halving until
    one is stable."""
    h0 = law.h
    first = probe(h0)
    if first.stable:
        prev, a = None, first
        for k in range(MAX_DOUBLINGS):
            g = _guess(prev, a) if prev is not None else None
            q = probe(min(1.02 * g, 2.0 * a.h) if g is not None and g > a.h else 2.0 * a.h)
            if not q.stable:
                return a, q, k + 2
            prev, a = a, q
        return a, None, MAX_DOUBLINGS + 1
    b, h = first, h0
    for k in range(MAX_HALVINGS):
        h = 0.5 * h
        q = probe(h)
        if q.stable:
            return q, b, k + 2
        b = q
    raise ParameterError(f"h: no step size in [{h:.3g}, {h0:.3g}] is mean-square stable for this sampler (the "
                         "second-moment map has spectral radius >= 1 at each); check the model and the sampler")


def stability_bracket(law, rtol: float = 1e-10) -> StabilityBracket:
    """The certified bracket of :class:`StabilityBracket` for ``law`` (an :class:`~.law.ExactLaw`); module docstring.

    Parameters
    ----------
    law : ExactLaw
        Its sampler's estimator, integrator and model are kept; only h varies.
    rtol : float
        Relative width of the bracket, 0 < rtol < 0.5.

    Returns
    -------
    StabilityBracket

    Raises
    ------
    ParameterError
        ``rtol`` outside (0, 0.5), or no stable h in (h / 2^60, h].
    """
    rtol = check_real("rtol", rtol)
    if not 0.0 < rtol < 0.5:
        raise ParameterError(f"rtol must satisfy 0 < rtol < 0.5, got {rtol!r}")
    with blas_threads(law.kernel):
        return _search(law, rtol)


def _search(law, rtol: float) -> StabilityBracket:
    a, b, solves = _initial(law, lambda h: _probe(law, h))
    if b is None:
        return StabilityBracket(a.h, float("inf"), a.rho_hi, float("nan"), "none", solves)
    seen = [a, b]

    def score(h: float) -> float:
        q = next((p for p in seen[:2] if p.h == h), None)  # Brent evaluates the ends again
        if q is None:
            q = _probe(law, h)
            seen.append(q)
        return q.score if np.isfinite(q.score) else -1.0

    brentq(score, a.h, b.h, xtol=0.45 * rtol * a.h, rtol=4 * np.finfo(float).eps, maxiter=200)
    a = max((q for q in seen if q.stable), key=lambda q: q.h)
    b = min((q for q in seen if not q.stable and q.h > a.h), key=lambda q: q.h)
    solves += len(seen) - 2
    while b.h - a.h > rtol * b.h:  # Brent's last bracket may have an end that was never the best estimate
        q = _probe(law, 0.5 * (a.h + b.h))
        solves += 1
        a, b = (q, b) if q.stable else (a, q)
    # the unstable end is certified at the farthest trial the tolerance allows (the largest margin rho - 1), else
    # at b, else by walking up from the stable end in steps doubling from rtol (the bracket then exceeds rtol)
    far = a.h * (1.0 + 0.95 * rtol)
    trials = ([_probe(law, far)] if far > b.h else []) + [b]
    solves += len(trials) - 1
    for k in range(MAX_DOUBLINGS + 1):
        for q in trials:
            if q.stable:
                a = q
                continue
            certificate, rho_hi, extra = _certify_unstable(law, q)
            solves += extra
            if certificate != "none":
                return _narrowed(law, StabilityBracket(a.h, q.h, a.rho_hi, rho_hi, certificate, solves), rtol)
        trials = [_probe(law, a.h * (1.0 + rtol * 2.0 ** (k + 1)))]
        solves += 1
    raise ParameterError(f"h: the mean-square stability limit near h = {a.h:.10g} could not be certified from above "
                         "(no trial up to 2^40 rtol beyond it was shown unstable)")


def _narrowed(law, br: StabilityBracket, rtol: float) -> StabilityBracket:
    """``br`` bisected down to the relative width ``rtol`` (at most :data:`MAX_NARROWINGS` times) where the
    Collatz-Wielandt bounds left it wider: close to h* (rho(T) within about 1% of 1 on ill-conditioned models) X is
    too large for them to certify either side, and each midpoint is then placed by the spectral radius computed
    (:func:`.solve.radius`); ``rho_lo`` is that radius where the stable end was placed so."""
    for _ in range(MAX_NARROWINGS):
        if br.hi - br.lo <= rtol * br.hi:
            break
        mid = 0.5 * (br.lo + br.hi)
        p = _probe(law, mid)
        if p.stable:
            br = br._replace(lo=mid, rho_lo=p.rho_hi, solves=br.solves + 1)
            continue
        certificate, rho, extra = _certify_unstable(law, p)
        if certificate != "none":
            br = br._replace(hi=mid, rho_hi=rho, certificate=certificate, solves=br.solves + 1 + extra)
        else:  # the radius computed is below 1: stable
            br = br._replace(lo=mid, rho_lo=rho, solves=br.solves + 1 + extra)
    return br


def _certify_unstable(law, b: _Probe) -> tuple[str, float, int]:
    """(certificate, bound or value of rho(T(b.h)), extra solves) for a trial found not stable (module docstring):
    "collatz-wielandt" where X is negative definite, "mean" where rho(Phi)^2 >= 1, "eigenvalue" where the spectral
    radius computed is >= 1, else "none" (the trial lies within rounding of h*)."""
    if b.X is not None:
        neg = collatz_wielandt(-b.X, -b.Y)
        if neg is not None and neg[0] >= 1.0:
            return "collatz-wielandt", neg[0], 0
    K = law.build(b.h)
    mr = mean_radius(K) ** 2
    if mr >= 1.0:
        return "mean", mr, 0
    rho = radius(K, law.explicit)
    return ("eigenvalue" if rho >= 1.0 else "none"), rho, 1


__all__ = ["MAX_DOUBLINGS", "MAX_HALVINGS", "MAX_NARROWINGS", "StabilityBracket", "stability_bracket"]
