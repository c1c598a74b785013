"""What a law on the "affine" route returns: the public contract between a sampler's parts and the exact engine.

On a model with an affine gradient (grad log p(x_i | theta) = -P_i theta + r_i, prior likewise) every sampler of
the workbench is a chain in its whole state x in R^D: theta (d), the integrator's blocks (e.g. a momentum) and the
estimator's blocks (anchors, a frozen gradient error, SAGA's table), written in homogeneous coordinates
x^ = (x, 1) in R^n, n = D + 1. One step is

    g     = Gm x^ + (fluctuation: minibatch counts times per-datum directions) + (Gaussian gradient noise),
    x'^   = A x^ + B g + (injected noise, covariance Qn),

with the estimator's own blocks updated by its state map. A law is a function ``law(obj, ctx)`` registered with
:func:`theory.law_for`; it reads the simulator object and the :class:`Context` (the model's affine parts, h, the
number type) and returns

* for an integrator: an :class:`IntegratorLaw` (its blocks, period, and (A, B, Qn) of the update);
* for an estimator: an :class:`EstimatorLaw` (its blocks, period, the stages before the update and, at the update,
  a :class:`Core`: E[g | x^], the state map, the fluctuation).

The engine composes the two into the chain's random affine stages (:class:`Stage`), whose first and second moments
close exactly (engine: :func:`theory.exact_law`). Matrices may hold float64, complex, mpmath or sympy numbers: build
them with :func:`eye`, :func:`zeros`, the :class:`Layout`'s helpers and ``ctx.num`` so that one law serves every
number type. ``docs/add_a_sampler.md`` derives a law end to end.

Also public here: :class:`Layout` (the named blocks of the state), :class:`Context`, :class:`Parts` (the model's
affine parts G_i = [-P_i, r_i]), :class:`Stage`, :class:`Factored` and :class:`Dense` (fluctuations),
:class:`NoiseOperator`, :class:`Scheme` and :class:`Group` (exact moments of minibatch counts).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .affine import Parts
from .kernel import Context, Layout
from .noise import Group, NoiseOperator, Scheme
from .stages import Dense, Factored, Stage, eye, zeros

#: (A, B, Qn) of an update: x'^ = A x^ + B g + N(0, Qn).
Update = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Fluct:
    """The fluctuation of one gradient estimate (and of the estimator's own blocks) around its conditional mean.

    Either factored (the gradient only), g - E[g | x^] = sum_i (c_i - E c_i) w_g (G_i - Gbar_g) R x^ with c the
    minibatch counts of the scheme held by ``op``, or dense per-datum directions of the gradient and of the state.

    Parameters
    ----------
    R : ndarray or None
        (d + 1, n): the point at which the per-datum gradients are evaluated, as a map of x^ (e.g.
        ``Layout.point()`` for theta, ``Layout.difference("theta", "anchor")`` for a control variate's difference).
    op : NoiseOperator or None
        The exact second moments of the minibatch counts (:class:`NoiseOperator`).
    dense : tuple or None
        Per group of data, (group, Wg (N_g, d, n), Ws (N_g, n, n)): the gradient's and the estimator blocks'
        direction of datum i, centred within the group (SAGA's table).
    """

    R: np.ndarray | None = None
    op: NoiseOperator | None = None
    dense: tuple[tuple[Group, np.ndarray, np.ndarray], ...] | None = None

    def stage_fluct(self, B: np.ndarray) -> Factored | Dense | None:
        """The stage's fluctuation when the integrator loads the gradient into the state by ``B`` (n, d).

        Parameters
        ----------
        B : ndarray
            (n, d), the integrator's gradient loading.

        Returns
        -------
        Factored, Dense or None
            None where the estimate does not fluctuate.
        """
        if self.dense is not None:
            return Dense(tuple((g, np.einsum("ab,nbc->nac", B, Wg) + Ws) for g, Wg, Ws in self.dense))
        if self.op is None or self.op.zero:
            return None
        return Factored(B, self.R, self.op)


@dataclass(frozen=True)
class Core:
    """An estimator at the integrator's update: the gradient's conditional law and the estimator's own state map.

    Parameters
    ----------
    grad_mean : ndarray
        Gm, (d, n): E[g | x^] = Gm x^ (e.g. ``ctx.parts.prior_matrix() @ lay.point() +
        ctx.parts.gradient_matrix_sum() @ lay.point()`` for an unbiased estimate of the full gradient).
    state_mean : ndarray
        (n, n): E[x^' | x^] of the estimator's own blocks; the identity off those blocks (``eye(lay.n, lay.dtype)``
        for a stateless estimator).
    fluct : Fluct or None
        The minibatch fluctuation of the gradient (and of the state), None for an exact gradient.
    grad_noise : ndarray or None
        (d, d): covariance of Gaussian gradient noise independent of the state (additive noise), or None.
    """

    grad_mean: np.ndarray
    state_mean: np.ndarray
    fluct: Fluct | None
    grad_noise: np.ndarray | None = None


@dataclass(frozen=True)
class EstimatorLaw:
    """The exact law of a gradient estimator on an affine model.

    Parameters
    ----------
    blocks : tuple of (str, int)
        Blocks the estimator adds to the state, in order (name, size), e.g. (("anchor", d), ("anchor_grad", d)).
    period : int
        P_e: step k uses phase k mod P_e (anchors refreshed every m steps: m; 1 for a stateless estimator).
    pre : callable
        ``pre(phase, layout) -> list[Stage]``: the random affine stages run before the update at that phase
        (an anchor refresh, a frozen-noise draw); [] for none.
    core : callable
        ``core(phase, layout) -> Core``: the estimate at the update.
    init : callable
        ``init(layout) -> ndarray`` (n, d + 1): x^_0 as a map of (theta_0, 1), e.g. the anchor set to theta_0.
    msgld_cov : callable
        ``msgld_cov(layout) -> ndarray`` (d, d): Cov(g) where it does not depend on the state (mSGLD's noise matrix
        reads it); raise :class:`simulate.validation.ParameterError` saying why where it does.
    """

    blocks: tuple[tuple[str, int], ...]
    period: int
    pre: Callable[[int, Layout], list[Stage]]
    core: Callable[[int, Layout], Core]
    init: Callable[[Layout], np.ndarray]
    msgld_cov: Callable[[Layout], np.ndarray]


@dataclass(frozen=True)
class IntegratorLaw:
    """The exact law of an integrator's update x'^ = A x^ + B g + N(0, Qn) on an affine model.

    Parameters
    ----------
    blocks : tuple of (str, int)
        Blocks the integrator adds to the state after theta, e.g. (("v", d),) for a momentum; () for none.
    period : int
        P_i: the update or the stages after it depend on the step k through k mod P_i (a momentum redrawn every
        L steps: L); 1 otherwise.
    update : callable
        ``update(layout, cov_g) -> (A, B, Qn)``: A (n, n), the identity off the integrator's and theta's blocks;
        B (n, d), how the gradient enters the state; Qn (n, n), the covariance of the injected noise (zero last row
        and column). ``cov_g`` is Cov(g) (d, d) when ``needs_grad_cov`` (mSGLD), else None.
    post : callable
        ``post(phase, layout) -> list[Stage]``: stages after the update at that phase (a momentum refresh); [] for
        none.
    init_noise : callable
        ``init_noise(layout) -> ndarray`` (n, n): covariance of the integrator's independent initial draws (a
        momentum v_0 ~ N(0, h I)); zeros for none.
    needs_grad_cov : bool
        True when ``update`` reads Cov(g) (the estimator's ``msgld_cov``).
    first : callable or None
        ``first(layout) -> (A, B, Qn)`` of step 0 where it differs from later steps (BAOAB's opening half-kick).
    """

    blocks: tuple[tuple[str, int], ...]
    period: int
    update: Callable[[Layout, np.ndarray | None], Update]
    post: Callable[[int, Layout], list[Stage]]
    init_noise: Callable[[Layout], np.ndarray]
    needs_grad_cov: bool = False
    first: Callable[[Layout], Update] | None = None


__all__ = ["Context", "Core", "Dense", "EstimatorLaw", "Factored", "Fluct", "Group", "IntegratorLaw", "Layout",
           "NoiseOperator", "Parts", "Scheme", "Stage", "Update", "eye", "zeros"]
