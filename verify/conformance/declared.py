"""What an implementation declares it computes, in the workbench's convention (README "Conventions").

A library step is mapped to one of the algorithms below with workbench parameters; the adapter does the mapping
from the library's own parametrisation and records it in ``convention`` (shown in the report).

* ``"sgld"``: theta' = theta + (h/2) g(theta) + sqrt(h) xi (Welling & Teh 2011), g = grad log prior +
  (N/n) sum_{i in S} grad log p(x_i | theta), S a fresh minibatch of n (with or without replacement) every step.
* ``"sgld_cv"``: the same step with Baker et al.'s (2019) control variate g = grad log post(theta_hat)
  + grad log prior(theta) - grad log prior(theta_hat) + (N/n) sum_S [g_i(theta) - g_i(theta_hat)].
* ``"svrg_ld"``: the same step with the SVRG estimator of Dubey et al. (2016): the anchor theta~ is set to the
  current state before steps 0 and ``anchor_offset + j update_rate`` (j = 0, 1, ...), and
  g = grad log post(theta~) + grad log prior(theta) - grad log prior(theta~) + (N/n) sum_S [g_i(theta) - g_i(theta~)].
* ``"sghmc"``: Chen, Fox & Guestrin (2014) with unit mass, beta_hat = 0, learning rate h and friction alpha per step,
  in one of two orders:

  - ``order="momentum_first"`` (the workbench's and Chen et al.'s eq. 15 / Algorithm 2, read one half-step
    apart): v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h) xi, theta' = theta + v';
  - ``order="explicit_euler"``: theta' = theta + v, v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h) xi, i.e.
    the gradient at the position *before* the position update (the Euler solver of blackjax, SGMCMCJax and
    posteriors).

  One call of the library may run ``inner_steps`` = L such steps; ``momentum_refresh`` redraws v ~ N(0, h T I) at
  the start of every call (variance ``refresh_var`` when given; ``v0_var``: the initial momentum's variance);
  ``minibatch_per_call`` reuses one minibatch for the L steps of a call.
* ``"baoab"``: the BAOAB splitting of underdamped Langevin dynamics (Leimkuhler & Matthews 2013) with a stochastic
  gradient, in the same step units (a library's time step dt and friction gamma: h = dt^2, alpha = gamma dt, v = dt
  times its velocity): v += (h/2) g; theta += v/2; v = c v + sqrt(h T (1 - c^2)) xi with c = exp(-alpha);
  theta += v/2; v += (h/2) g', where g' is a fresh minibatch estimate at the new theta that the next step reuses for
  its first half-kick (one gradient per step).

``epochs=True`` (SGLD only): minibatches as ``torch.utils.data.DataLoader(shuffle=True)`` draws them: the data are
reshuffled at the start of every epoch of N/n steps and cut into N/n disjoint batches (n must divide N); the exact
law is known on the 1-D toy (additive gradient noise; :mod:`verify.conformance._epochs`).

``temperature`` T scales every injected noise variance (target p^(1/T)): SGLD noise N(0, h T), SGHMC 2 alpha h T,
redrawn momenta N(0, h T), BAOAB h T (1 - c^2).

A conformance run observes theta after every call: "step k" below is the k-th call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simulate.validation import ParameterError, check_int, check_positive

ALGORITHMS = ("sgld", "sgld_cv", "svrg_ld", "sghmc", "baoab")
SGHMC_ORDERS = ("momentum_first", "explicit_euler")


@dataclass(frozen=True, eq=False)
class Declared:
    """The algorithm an implementation declares it computes, with its parameters in the workbench convention.

    The exact law of the declared algorithm (the exact engine's) is what a conformance run holds the
    implementation to; the module docstring states each algorithm's update.

    Parameters
    ----------
    algorithm : str
        One of :data:`ALGORITHMS`: "sgld", "sgld_cv", "svrg_ld", "sghmc", "baoab".
    h : float
        Step size in the workbench convention (theta' = theta + (h/2) g + sqrt(h) xi; Chen et al.'s, blackjax's and
        SGMCMCJax's eps is h/2); SGHMC's learning rate.
    n : int
        Minibatch size.
    replace : bool
        Minibatches drawn with replacement (default: without).
    epochs : bool
        SGLD only: reshuffled disjoint batches, as a torch DataLoader with ``shuffle=True`` draws them (n | N).
    theta_hat : tuple of float, optional
        The control variate's centre ("sgld_cv" only).
    update_rate : int, optional
        SVRG's epoch length: the anchor is refreshed every ``update_rate`` calls ("svrg_ld" only).
    anchor_offset : int
        SVRG: the first refresh after the one at call 0.
    alpha : float, optional
        Friction per step (SGHMC: 0 < alpha < 2; BAOAB: alpha = gamma dt).
    order : str
        SGHMC's order of updates: "momentum_first" (Chen et al. eq. 15) or "explicit_euler" (the peers').
    inner_steps : int
        SGHMC steps per library call.
    momentum_refresh : bool
        SGHMC: redraw the momentum at the start of every call.
    minibatch_per_call : bool
        SGHMC: one minibatch for all the inner steps of a call.
    v0_var, refresh_var : float, optional
        Variance of the initial and of a redrawn momentum (default h T).
    temperature : float
        T, scaling every injected noise variance (target p^(1/T)).
    convention : str
        How the adapter mapped the library's parameters to these (shown in the report).

    Raises
    ------
    simulate.validation.ParameterError
        For an unknown algorithm, a parameter out of range, or a parameter the algorithm does not take (naming it).

    References
    ----------
    Welling & Teh (2011), eq. (4) (SGLD); Baker, Fearnhead, Fox & Nemeth (2019), Algorithm 1 (SGLD-CV); Dubey et
    al. (2016), Sec. 3 (SVRG-LD); Chen, Fox & Guestrin (2014), eq. (15) (SGHMC); Leimkuhler & Matthews (2013)
    (BAOAB).
    """

    algorithm: str
    h: float
    n: int
    replace: bool = False
    epochs: bool = False
    theta_hat: tuple[float, ...] | None = None
    update_rate: int | None = None
    anchor_offset: int = 0
    alpha: float | None = None
    order: str = "momentum_first"
    inner_steps: int = 1
    momentum_refresh: bool = False
    minibatch_per_call: bool = False
    v0_var: float | None = None
    refresh_var: float | None = None
    temperature: float = 1.0
    convention: str = ""

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ParameterError(f"algorithm must be one of {ALGORITHMS} (the algorithms the exact engine knows), "
                                 f"got {self.algorithm!r}")
        check_positive("h", self.h)
        check_int("n", self.n, 1)
        check_int("inner_steps", self.inner_steps, 1)
        check_int("anchor_offset", self.anchor_offset, 0)
        check_positive("temperature", self.temperature)
        if self.algorithm in ("sghmc", "baoab"):
            if self.alpha is None:
                raise ParameterError(f"alpha (the friction per step) must be given for algorithm {self.algorithm!r}")
            a = check_positive("alpha", self.alpha)
            if a >= 2.0 and self.algorithm == "sghmc":
                raise ParameterError(f"alpha must satisfy 0 < alpha < 2 (SGHMC friction per step), got {a!r}")
            if self.order not in SGHMC_ORDERS:
                raise ParameterError(f"order must be one of {SGHMC_ORDERS}, got {self.order!r}")
            for name in ("v0_var", "refresh_var"):
                val = getattr(self, name)
                if val is not None and not (math.isfinite(val) and val >= 0):
                    raise ParameterError(f"{name} must satisfy 0 <= {name} < inf, got {val!r}")
        else:
            for name in ("alpha", "v0_var", "refresh_var"):
                if getattr(self, name) is not None:
                    raise ParameterError(f"{name} is an SGHMC/BAOAB parameter; algorithm {self.algorithm!r} has none")
            if self.inner_steps != 1 or self.momentum_refresh or self.minibatch_per_call:
                raise ParameterError(f"inner_steps, momentum_refresh and minibatch_per_call are SGHMC parameters; "
                                     f"algorithm {self.algorithm!r} takes one step per call")
        if self.algorithm == "baoab" and (self.inner_steps != 1 or self.momentum_refresh or self.minibatch_per_call
                                          or self.order != "momentum_first"):
            raise ParameterError("inner_steps, momentum_refresh, minibatch_per_call and order are SGHMC parameters; "
                                 "algorithm 'baoab' takes one step per call")
        if self.epochs and (self.algorithm != "sgld" or self.replace):
            raise ParameterError("epochs (reshuffled disjoint batches) is declared for algorithm 'sgld' without "
                                 f"replacement only, got algorithm {self.algorithm!r}, replace={self.replace}")
        if self.algorithm == "sgld_cv":
            if self.theta_hat is None:
                raise ParameterError("theta_hat (the control-variate centre) must be given for algorithm 'sgld_cv'")
            th = np.asarray(self.theta_hat, dtype=float)
            if th.ndim != 1 or not np.all(np.isfinite(th)):
                raise ParameterError(f"theta_hat must be a finite 1-D vector, got {self.theta_hat!r}")
        elif self.theta_hat is not None:
            raise ParameterError(f"theta_hat is the 'sgld_cv' centre; algorithm {self.algorithm!r} has none")
        if self.algorithm == "svrg_ld":
            check_int("update_rate", self.update_rate, 1)
        elif self.update_rate is not None:
            raise ParameterError(f"update_rate is the 'svrg_ld' epoch length; algorithm {self.algorithm!r} has none")

    @property
    def momentum_var(self) -> float:
        """Variance per coordinate of a redrawn momentum: h T (the stationary law of v in step units) unless
        ``refresh_var`` says otherwise."""
        return self.h * self.temperature if self.refresh_var is None else float(self.refresh_var)

    def initial_momentum_var(self) -> float:
        """Variance per coordinate of the initial momentum: h T unless ``v0_var`` says otherwise.

        Returns
        -------
        float
            The variance.
        """
        return self.h * self.temperature if self.v0_var is None else float(self.v0_var)

    def refreshes_anchor(self, step: int) -> bool:
        """Whether SVRG sets its anchor to the current state before a call.

        Parameters
        ----------
        step : int
            The call, 0-based.

        Returns
        -------
        bool
            True at call 0 and at ``anchor_offset + j update_rate``; always False for other algorithms.
        """
        if self.algorithm != "svrg_ld":
            return False
        return step == 0 or (step >= self.anchor_offset and (step - self.anchor_offset) % self.update_rate == 0)

    def describe(self) -> str:
        """The algorithm and its workbench parameters, in one line.

        Returns
        -------
        str
            E.g. ``"sgld (h=0.001, n=10, without replacement)"``.
        """
        parts = [f"h={self.h:.4g}", f"n={self.n}", "reshuffled epochs" if self.epochs else
                 "with replacement" if self.replace else "without replacement"]
        if self.temperature != 1.0:
            parts.append(f"T={self.temperature:g}")
        if self.algorithm == "baoab":
            parts.append(f"alpha={self.alpha:.4g}")
        if self.algorithm == "sghmc":
            parts += [f"alpha={self.alpha:.4g}", self.order, f"L={self.inner_steps}"]
            if self.momentum_refresh:
                parts.append("momentum redrawn every call")
            if self.minibatch_per_call:
                parts.append("one minibatch per call")
        if self.algorithm == "svrg_ld":
            parts.append(f"anchor every {self.update_rate} steps (offset {self.anchor_offset})")
        return f"{self.algorithm} ({', '.join(parts)})"


__all__ = ["ALGORITHMS", "SGHMC_ORDERS", "Declared"]
