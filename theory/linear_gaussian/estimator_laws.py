"""The exact law of each gradient estimator on an affine model, read from the simulator's estimator object.

An estimator law says which blocks it adds to the state, its period, the stages it runs before the integrator's
update (``pre``: anchor refresh, frozen-noise draw) and, at the update itself (``core``), the mean gradient
E[g | x] = Gm x^ (d, n), its own blocks' mean update (n, n) and the fluctuation of both (same counts):

* full gradient:      g = G_0 x^_theta + sum_i G_i x^_theta, no fluctuation (Euler / ULA);
* minibatch:          g = G_0 x^_theta + (N/n) sum_{i in S} G_i x^_theta (Welling & Teh 2011 eq. 4; Vollmer et al.
                      eq. 6), with or without replacement;
* stratified:         g = G_0 x^_theta + sum_g (N_g/b_g) sum_{i in B_g} G_i x^_theta (Fu & Zhang 2017 eq. 10);
* additive noise:     g = G_0 x^_theta + sum_i G_i x^_theta + e, e ~ N(0, Sigma) fresh each step, Sigma constant
                      (:class:`simulate.estimators.additive_noise.AdditiveNoise` with a constant variance or covariance
                      matrix; the theta-free gradient noise that the papers' Gaussian-target stationary laws take as
                      given);
* control variate:    g = G_0 x^_theta + ghat + (N/n) sum_{i in S} G_i (theta - theta_hat, 0), ghat the stored
                      sum_i g_i(theta_hat) (Baker et al. 2019 Alg. 1);
* vrSG-MCMC / SVRG:   at l mod m = 0: anchor = theta, gtilde = (N/n1) sum_{i in pi} G_i x^_theta; then
                      g = gtilde + G_0 x^_theta + (N/n2) sum_{i in pi2} G_i (theta - anchor, 0) (Chen et al. 2019
                      Alg. 1; SVRG-LD: gtilde the full sum, pi2 with or without replacement); period m;
* SAGA:               table entries T_i: g = G_0 x^_theta + sum_j T_j + (N/n) sum_{i in S} (G_i x^_theta - T_i), then
                      T_i <- G_i x^_theta for i in S (Dubey et al. 2016; Baker et al. 2019 Sec. 4.4);
* minibatch reused K steps (:class:`simulate.estimators.reuse.Reused`): exact where the inner noise is additive (all
                      P_i equal in a group, or AdditiveNoise): the gradient error e is then a constant vector, drawn
                      at l mod K = 0 and kept in the state; period K.

Each law registers itself with :func:`theory.law_for` (the door a user's module uses too), with the examples the
shared checks hold it to; :class:`~simulate.estimators.reuse.Reused` finds its inner estimator's law through
:func:`theory.law_of`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simulate.estimators.additive_noise import AdditiveNoise
from simulate.estimators.control_variates import ControlVariate
from simulate.estimators.minibatch import FullGradient, Minibatch
from simulate.estimators.reuse import Reused
from simulate.estimators.saga import SAGA
from simulate.estimators.stratified import Strata, Stratified
from simulate.estimators.vr import SVRG, VRMinibatch
from simulate.validation import ParameterError

from ..laws import Example, ExampleSettings, law_for, law_of
from .affine import posterior, read_parts
from .contract import Context, Core, EstimatorLaw, Fluct, Layout
from .noise import Group, NoiseOperator, Scheme
from .stages import Factored, Stage, eye, zeros

#: Largest N * n^2 (numbers in SAGA's per-datum stage directions) the engine builds.
SAGA_MAX_ENTRIES = 2 * 10**7


def _init_theta(lay: Layout) -> np.ndarray:
    return lay.point("theta").T.copy()


def _additive_cov(op: NoiseOperator | None, R: np.ndarray, what: str) -> np.ndarray:
    """Cov(g | x) when it does not depend on x (additive noise): op applied to the outer product of R's corner."""
    d = R.shape[0] - 1
    if op is None or op.zero:
        return zeros((d, d), R.dtype)
    if not op.additive:
        raise ParameterError(
            f"mSGLD with {what}: the gradient-noise covariance depends on theta (the per-datum precisions P_i differ "
            "within a minibatch group, so Cov g(theta) is quadratic in theta) and the mSGLD noise matrix "
            "sqrt(h) (I - (h/8) Cov g) is not constant; its moments do not close. The engine covers mSGLD where all "
            "P_i are equal (additive noise), e.g. the Gaussian mean and location models")
    c = R[:, -1]
    return op.apply(np.outer(c, c))


def _stateless(ctx: Context, R: np.ndarray | None, op: NoiseOperator | None, grad_mean, what: str) -> EstimatorLaw:
    def core(phase: int, lay: Layout) -> Core:
        return Core(grad_mean(lay), eye(lay.n, lay.dtype), None if op is None else Fluct(R(lay), op))

    return EstimatorLaw((), 1, lambda p, lay: [], core, _init_theta,
                        lambda lay: _additive_cov(op, R(lay) if R else lay.point(), what))


def _full_mean(ctx: Context):
    G = ctx.parts.prior_matrix() + ctx.parts.gradient_matrix_sum()
    return lambda lay: G @ lay.point()


def _centre(model, s: ExampleSettings) -> np.ndarray:
    """A control variate's centre for the examples: ``s.centre``, else the posterior mean plus 0.05."""
    return posterior(read_parts(model))[0] + 0.05 if s.centre is None else s.centre


def _halves(model, s: ExampleSettings, replace: bool) -> Stratified:
    """Two strata (even and odd data), n/2 draws from each."""
    return Stratified(Strata.from_labels(np.arange(model.n_data) % 2), (s.n // 2, s.n // 2), replace)


@law_for(FullGradient, examples=lambda model, s: [Example("full gradient", FullGradient())])
def full_gradient(est, ctx: Context) -> EstimatorLaw:
    """g = G_0 x^_theta + sum_i G_i x^_theta: the exact gradient (Euler / ULA), no fluctuation."""
    return _stateless(ctx, None, None, _full_mean(ctx), "the full gradient")


@law_for(Minibatch, examples=lambda model, s: [Example("minibatch", Minibatch(s.n)),
                                               Example("minibatch with replacement", Minibatch(s.n, True))])
def minibatch(est, ctx: Context) -> EstimatorLaw:
    """g = G_0 x^_theta + (N/n) sum_{i in S} G_i x^_theta (Welling & Teh 2011 eq. 4; Vollmer et al. 2016 eq. 6)."""
    op = NoiseOperator(ctx.parts, Scheme.minibatch(ctx.parts.n_data, est.n, est.replace))
    return _stateless(ctx, lambda lay: lay.point(), op, _full_mean(ctx), "a minibatch")


@law_for(Stratified, examples=lambda model, s: [Example("stratified", _halves(model, s, False)),
                                                 Example("stratified with replacement", _halves(model, s, True))])
def stratified(est, ctx: Context) -> EstimatorLaw:
    """g = G_0 x^_theta + sum_g (N_g/b_g) sum_{i in B_g} G_i x^_theta (Fu & Zhang 2017 eq. 10)."""
    op = NoiseOperator(ctx.parts, Scheme.stratified(est.strata.members, est.sizes, est.replace))
    return _stateless(ctx, lambda lay: lay.point(), op, _full_mean(ctx), "stratified minibatches")


def _additive_example(model, s: ExampleSettings) -> list[Example]:
    """Sigma = N (0.7 I + 0.3 * ones): correlated, positive definite, on the scale of minibatch noise."""
    d = model.dim
    return [Example("additive noise", AdditiveNoise(model.n_data * (0.7 * np.eye(d) + 0.3 * np.ones((d, d)))))]


@law_for(AdditiveNoise, examples=_additive_example)
def additive_noise(est, ctx: Context) -> EstimatorLaw:
    """The full gradient plus Gaussian noise of constant covariance Sigma, drawn afresh at every step."""
    if not est.is_constant:
        raise ParameterError("AdditiveNoise with a theta-dependent variance V(theta): the noise is not additive in "
                             "the state, so its moments do not close; the engine covers a constant variance or a "
                             "constant (d, d) covariance matrix")
    Sig = np.asarray(est.covariance, dtype=np.float64)
    if Sig.shape[0] != ctx.parts.dim and ctx.proj is None:
        raise ParameterError(f"AdditiveNoise: a ({Sig.shape[0]}, {Sig.shape[0]}) covariance on a model of dimension "
                             f"{ctx.parts.dim}")
    if ctx.proj is not None:
        Sig = ctx.proj @ Sig @ ctx.proj.T
    Sig = ctx.num(Sig)
    mean = _full_mean(ctx)

    def core(phase: int, lay: Layout) -> Core:
        return Core(mean(lay), eye(lay.n, lay.dtype), None, Sig)

    return EstimatorLaw((), 1, lambda p, lay: [], core, _init_theta, lambda lay: Sig)


@law_for(ControlVariate,
         examples=lambda model, s: [Example("control variate", ControlVariate.at(model, s.n, _centre(model, s)))])
def control_variate_law(est, ctx: Context) -> EstimatorLaw:
    """g = G_0 x^_theta + ghat + (N/n) sum_{i in S} G_i (theta - theta_hat, 0) (Baker et al. 2019 Alg. 1)."""
    p = ctx.parts
    op = NoiseOperator(p, Scheme.minibatch(p.n_data, est.n, est.replace))
    that, ghat = ctx.vector(est.theta_hat), ctx.vector(est.grad_lik_hat)

    def mean(lay: Layout) -> np.ndarray:
        return p.prior_matrix() @ lay.point() + p.gradient_matrix_sum() @ lay.difference("theta", that) + \
            np.outer(ghat, lay.corner()[-1])

    return _stateless(ctx, lambda lay: lay.difference("theta", that), op, mean, "a control variate")


@law_for(SVRG, examples=lambda model, s: [Example("SVRG", SVRG(s.n, s.epoch))])
@law_for(VRMinibatch, examples=lambda model, s: [
    Example("Chen et al. Alg. 1", VRMinibatch(s.n_anchor, s.n, s.epoch)),
    Example("Chen et al. Alg. 1 with replacement", VRMinibatch(s.n_anchor, s.n, s.epoch, replace=True))])
def vr_minibatch(est, ctx: Context) -> EstimatorLaw:
    """At l mod m = 0: anchor = theta, gtilde = (N/n1) sum_{i in pi} G_i x^_theta; then g = gtilde + G_0 x^_theta +
    (N/n2) sum_{i in pi2} G_i (theta - anchor, 0) (Chen et al. 2019 Alg. 1; SVRG-LD: gtilde the full sum)."""
    p = ctx.parts
    N, d = p.n_data, p.dim
    n1 = est.anchor_size(_Sized(N))
    full = est.anchor_is_full(_Sized(N))  # the exact full sum (SVRG-LD, with or without replacement for pi2)
    op1 = NoiseOperator(p, Scheme.minibatch(N, N if full else n1, False if full else est.replace))
    op2 = NoiseOperator(p, Scheme.minibatch(N, est.n2, est.replace))
    Gsum = p.gradient_matrix_sum()

    def pre(phase: int, lay: Layout) -> list[Stage]:
        if phase != 0:
            return []
        M = eye(lay.n, lay.dtype)
        a, ag = lay.slice("anchor"), lay.slice("anchor_grad")
        M[a] = lay.select("theta")
        M[ag] = Gsum @ lay.point()
        fl = None if op1.zero else Factored(lay.embed("anchor_grad"), lay.point(), op1)
        return [Stage(M, zeros((lay.n, lay.n), lay.dtype), fl)]

    def core(phase: int, lay: Layout) -> Core:
        R = lay.difference("theta", "anchor")
        g = lay.select("anchor_grad") + p.prior_matrix() @ lay.point() + Gsum @ R
        return Core(g, eye(lay.n, lay.dtype), Fluct(R, op2))

    def msgld(lay: Layout) -> np.ndarray:
        raise ParameterError(f"{type(est).__name__}: mSGLD is not defined for a variance-reduced estimator (its "
                             "gradient noise depends on the anchor and is correlated within an epoch; the simulator "
                             "refuses it too)")

    return EstimatorLaw((("anchor", d), ("anchor_grad", d)), int(est.m), pre, core, _init_theta, msgld)


@dataclass(frozen=True)
class _Sized:
    n_data: int


@law_for(SAGA, examples=lambda model, s: [Example("SAGA", SAGA(s.n))])
def saga(est, ctx: Context) -> EstimatorLaw:
    """g = G_0 x^_theta + sum_j T_j + (N/n) sum_{i in S} (G_i x^_theta - T_i), then T_i <- G_i x^_theta for i in S
    (Dubey et al. 2016; Baker et al. 2019 Sec. 4.4): the table is part of the state."""
    p = ctx.parts
    N, d, n = p.n_data, p.dim, est.n
    size = N * (d * (N + 1) + 1) ** 2
    if size > SAGA_MAX_ENTRIES:
        raise ParameterError(f"SAGA's table makes the state d (N + 1) = {d * (N + 1)}-dimensional; the engine builds "
                             f"its per-datum directions for N (d (N + 1) + 1)^2 <= {SAGA_MAX_ENTRIES} numbers, "
                             f"here {size}: use a smaller N")
    grp = Group(np.arange(N), n, False)
    Gi = p.gradient_matrices(np.arange(N))

    def table(lay: Layout, i: int) -> slice:
        s = lay.slice("table")
        return slice(s.start + i * d, s.start + (i + 1) * d)

    def diffs(lay: Layout) -> np.ndarray:
        """(N, d, n): x^ -> g_i(theta) - T_i."""
        out = zeros((N, d, lay.n), lay.dtype)
        out[:] = Gi @ lay.point()
        for i in range(N):
            out[i][:, table(lay, i)] = out[i][:, table(lay, i)] - eye(d, lay.dtype)
        return out

    def core(phase: int, lay: Layout) -> Core:
        D = diffs(lay)
        g = p.prior_matrix() @ lay.point() + D.sum(axis=0) + lay.select("table").reshape(N, d, lay.n).sum(axis=0)
        M = eye(lay.n, lay.dtype)
        Ws = zeros((N, lay.n, lay.n), lay.dtype)
        for i in range(N):
            M[table(lay, i)] = M[table(lay, i)] + D[i] * n / N
            Ws[i][table(lay, i)] = D[i]
        Wg = D * (N / n if lay.dtype != object else ctx.num(N) / ctx.num(n))
        Wg, Ws = Wg - Wg.mean(axis=0), Ws - Ws.mean(axis=0)
        return Core(g, M, Fluct(dense=((grp, Wg, Ws),)))

    def init(lay: Layout) -> np.ndarray:
        J = _init_theta(lay)
        for i in range(N):
            J[table(lay, i)] = Gi[i]
        return J

    def msgld(lay: Layout) -> np.ndarray:
        raise ParameterError("SAGA: mSGLD is not defined for SAGA (its gradient noise depends on the table; the "
                             "simulator refuses it too)")

    return EstimatorLaw((("table", N * d),), 1, lambda ph, lay: [], core, init, msgld)


def _reused_examples(model, s: ExampleSettings) -> list[Example]:
    K = s.period
    return [Example(f"reused {K} steps", Reused(Minibatch(s.n), K)),
            Example(f"reused control variate, {K} steps", Reused(ControlVariate.at(model, s.n, _centre(model, s)), K)),
            Example(f"reused stratified, {K} steps", Reused(_halves(model, s, False), K))]


@law_for(Reused, examples=_reused_examples)
def reused(est, ctx: Context) -> EstimatorLaw:
    """Reused(inner, K): the inner estimator's law (found through :func:`theory.law_of`) with its gradient error
    frozen for K steps (exact where the inner noise is additive)."""
    inner = law_of(est.inner, "affine")(est.inner, ctx)
    K, d = int(est.K), ctx.parts.dim
    probe = Layout(("theta", "frozen"), (d, d), ctx.dtype)
    c0 = inner.core(0, probe)
    fl, gn = c0.fluct, c0.grad_noise
    if inner.period != 1 or inner.blocks:
        raise ParameterError("Reused: the inner estimator must be stateless (Minibatch, ControlVariate, FullGradient, "
                             "Stratified, AdditiveNoise)")
    counts = fl is not None and fl.op is not None and not fl.op.zero
    if (not counts and gn is None) or K == 1:
        return inner
    if counts and not fl.op.additive:
        raise ParameterError(
            f"Reused(K = {K}) with multiplicative noise: the per-datum precisions P_i differ, so the K-step map "
            "prod_j (I - (h/2) P_S) theta is a degree-K polynomial in the minibatch counts and second moments do not "
            "close; the engine is exact for a reused minibatch only where the noise is additive (all P_i equal in "
            "each group, e.g. the Gaussian mean and location models)")

    def pre(phase: int, lay: Layout) -> list[Stage]:
        if phase != 0:
            return []
        M = eye(lay.n, lay.dtype)
        M[lay.slice("frozen")] = 0
        c = inner.core(0, lay)
        E = lay.embed("frozen")
        noise = zeros((lay.n, lay.n), lay.dtype) if c.grad_noise is None else E @ c.grad_noise @ E.T
        counts = c.fluct is not None and c.fluct.op is not None and not c.fluct.op.zero
        return [Stage(M, noise, Factored(E, c.fluct.R, c.fluct.op) if counts else None)]

    def core(phase: int, lay: Layout) -> Core:
        c = inner.core(0, lay)
        return Core(c.grad_mean + lay.select("frozen"), c.state_mean, None)

    return EstimatorLaw((("frozen", d),), K, pre, core, _init_theta, inner.msgld_cov)


__all__ = ["SAGA_MAX_ENTRIES", "additive_noise", "control_variate_law", "full_gradient",
           "minibatch", "reused", "saga", "stratified", "vr_minibatch"]
