"""The samplers the explorer compares, each as one line of :mod:`simulate.samplers` at (h, n).

``n`` is the minibatch size of the sampler's gradient estimate: n for SGLD (with and without replacement), mSGLD,
SGLD-CV and SGHMC, n2 for SVRG-LD and vrSG-MCMC (Chen et al. Algorithm 1, whose anchor batch n1 and epoch m are
:class:`SamplerOptions`). Costs per step are the estimators' own ``grads_per_step`` (per-datum gradient
evaluations: n; 2n for SGLD-CV, plus N once for the full gradient at theta_hat; 2 n2 + N/m for SVRG-LD;
2 n2 + n1/m for vrSG-MCMC).

SGLD-CV is centred at the exact posterior mode (the mean, on these Gaussian posteriors): the mode search's cost is
not counted, the full gradient at theta_hat (N evaluations) is. SGHMC's ``h`` is its learning rate eta = eps^2 of
Chen, Fox & Guestrin's eq. (15), not a Langevin time step: :func:`langevin_equivalent_step` converts it (the Langevin
step h = 2 eta / alpha with the same drift and diffusion per step; docs/explorer.md derives it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simulate import samplers as named
from simulate.sampler import Sampler
from simulate.validation import ParameterError, check_int, check_positive


@dataclass(frozen=True)
class SamplerOptions:
    """Settings held fixed while (h, n) vary.

    Parameters
    ----------
    n1 : int, optional
        vrSG-MCMC's anchor batch (None: min(N, 10 n2), Chen et al.'s (100, 10) at N = 1000).
    m : int
        The epoch of SVRG-LD and vrSG-MCMC (anchor refreshed every m steps).
    alpha : float
        SGHMC's friction per step, 0 < alpha < 1 (SGHMC's h is its learning rate eta; the Langevin step matched to
        it is 2 eta / alpha, :func:`langevin_equivalent_step`).

    Raises
    ------
    simulate.validation.ParameterError
        For a value out of range.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1 (n1, n2, m); Chen, Fox & Guestrin (2014), eq. (15) (alpha).
    """

    n1: int | None = None
    m: int = 10
    alpha: float = 0.1

    def __post_init__(self) -> None:
        if self.n1 is not None:
            check_int("n1", self.n1, 1)
        check_int("m", self.m, 1)
        a = check_positive("alpha", self.alpha)
        if a >= 1.0:
            raise ParameterError(f"alpha must satisfy 0 < alpha < 1, got {a}")

    def anchor_batch(self, N: int, n2: int) -> int:
        """vrSG-MCMC's anchor batch at correction minibatch n2.

        Parameters
        ----------
        N : int
            The number of data.
        n2 : int
            The correction minibatch size.

        Returns
        -------
        int
            n1, with n2 <= n1 <= N.

        Raises
        ------
        simulate.validation.ParameterError
            When the fixed ``n1`` is outside [n2, N].
        """
        n1 = min(N, 10 * n2) if self.n1 is None else self.n1
        if not n2 <= n1 <= N:
            raise ParameterError(f"n1 must satisfy n2 = {n2} <= n1 <= N = {N}, got {n1}")
        return n1


@dataclass(frozen=True)
class SamplerSpec:
    """A sampler of the comparison.

    Parameters
    ----------
    key : str
        Its key in :data:`SAMPLERS`.
    label : str
        Its name in tables and pages.
    build : callable
        ``build(model, h, n, options) -> simulate.Sampler``: one line of ``simulate.samplers``.
    periodic : bool
        Whether its exact law is m-periodic (anchors refreshed every m steps).
    """

    key: str
    label: str
    build: Callable[[object, float, int, SamplerOptions], Sampler]
    periodic: bool = False  # the exact law is m-periodic (anchors refreshed every m steps)

    def n_values(self, ns, N: int) -> tuple[int, ...]:
        """The minibatch sizes this sampler takes with N data.

        Parameters
        ----------
        ns : iterable of int
            Candidate sizes.
        N : int
            The number of data.

        Returns
        -------
        tuple of int
            Those in [1, N] (in [1, N - 1] for the anchored estimators, whose anchor batch must exceed n2).
        """
        top = N - 1 if self.periodic else N
        return tuple(int(n) for n in ns if 1 <= int(n) <= top)

    def settings(self, options: SamplerOptions, N: int, n: int) -> str:
        """The fixed settings of this sampler in words (for tables and the page).

        Parameters
        ----------
        options : SamplerOptions
            The settings held fixed.
        N : int
            The number of data.
        n : int
            The minibatch size.

        Returns
        -------
        str
            E.g. "n1 = 100, m = 10"; empty when the sampler has none.
        """
        if self.key == "vrsgld":
            return f"n1 = {options.anchor_batch(N, n)}, m = {options.m}"
        if self.key == "svrgld":
            return f"m = {options.m}"
        if self.key == "sghmc":
            return f"alpha = {options.alpha:g}"
        if self.key == "sgld_cv":
            return "theta_hat = posterior mode"
        return ""


def langevin_equivalent_step(eta: float, alpha: float) -> float:
    """The Langevin time step h matched to SGHMC's learning rate eta at friction alpha: h = 2 eta / alpha.

    SGHMC (Chen, Fox & Guestrin eq. (15), unit mass, beta_hat = 0) is v' = (1 - alpha) v + eta g + sqrt(2 alpha eta) xi,
    theta' = theta + v'. Under a constant force g its velocity settles at eta g / alpha, so theta drifts by
    (2 eta / alpha) g / 2 per step, as the Langevin step theta' = theta + (h/2) g + sqrt(h) xi at h = 2 eta / alpha;
    with g = 0 the velocity is AR(1) with coefficient 1 - alpha and stationary variance 2 eta / (2 - alpha), so theta
    diffuses by 2 eta / alpha per step over many steps, again h. The two therefore discretise the same overdamped
    dynamics at the same time per step over times long against 1 / alpha steps; at alpha = 1 eq. (15) is exactly
    SGLD with h = 2 eta (the momentum is forgotten every step).

    Parameters
    ----------
    eta : float
        SGHMC's learning rate eta = eps^2 (> 0; the explorer's and ``simulate.sghmc``'s h).
    alpha : float
        SGHMC's friction per step, 0 < alpha <= 1.

    Returns
    -------
    float
        h = 2 eta / alpha, the time step of SGLD / mSGLD / SGLD-CV / SVRG-LD / vrSG-MCMC matched to eta.

    Raises
    ------
    simulate.validation.ParameterError
        For eta not positive and finite, or alpha outside (0, 1].

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15) (eta = eps^2 M^-1, alpha = eps M^-1 C) and Section 3.3 (its relation to
    SGD with momentum); Welling & Teh (2011), eq. (4) (the Langevin step h). The matching is new.
    """
    eta = check_positive("eta", eta)
    a = check_positive("alpha", alpha)
    if a > 1.0:
        raise ParameterError(f"alpha must satisfy 0 < alpha <= 1, got {a}")
    return 2.0 * eta / a


def _mode(model) -> np.ndarray:
    if not hasattr(model, "affine_parts"):
        return np.asarray(model.posterior_mode(), float)
    from theory.linear_gaussian.affine import posterior, read_parts

    return posterior(read_parts(model))[0]


def _cv(model, h: float, n: int, o: SamplerOptions) -> Sampler:
    return named.sgld_cv(model, h, n, theta_hat=_mode(model))


#: The samplers the explorer compares, by key: SGLD (without and with replacement), mSGLD, SGLD-CV, SVRG-LD,
#: vrSG-MCMC, SGHMC.
SAMPLERS: dict[str, SamplerSpec] = {s.key: s for s in (
    SamplerSpec("sgld", "SGLD (without replacement)", lambda mo, h, n, o: named.sgld(mo, h, n)),
    SamplerSpec("sgld_wr", "SGLD (with replacement)", lambda mo, h, n, o: named.sgld(mo, h, n, replace=True)),
    SamplerSpec("msgld", "mSGLD", lambda mo, h, n, o: named.msgld(mo, h, n)),
    SamplerSpec("sgld_cv", "SGLD-CV", _cv),
    SamplerSpec("svrgld", "SVRG-LD", lambda mo, h, n, o: named.svrgld(mo, h, n, o.m), periodic=True),
    SamplerSpec("vrsgld", "vrSG-MCMC (vrSGLD)",
                lambda mo, h, n, o: named.vrsgld(mo, h, o.anchor_batch(mo.n_data, n), n, o.m), periodic=True),
    SamplerSpec("sghmc", "SGHMC", lambda mo, h, n, o: named.sghmc(mo, h, o.alpha, n=n)),
)}


def sampler_spec(key: str) -> SamplerSpec:
    """A sampler of :data:`SAMPLERS` by key.

    Parameters
    ----------
    key : str
        Its key.

    Returns
    -------
    SamplerSpec
        The sampler.

    Raises
    ------
    simulate.validation.ParameterError
        For an unknown key, listing the known ones.
    """
    if key not in SAMPLERS:
        raise ParameterError(f"sampler must be one of {list(SAMPLERS)}, got {key!r}")
    return SAMPLERS[key]


__all__ = ["SAMPLERS", "SamplerOptions", "SamplerSpec", "langevin_equivalent_step", "sampler_spec"]
