"""The exact engine's solvers (theory.linear_gaussian.solve, krylov, stability, assembled, symmetric): the pair matrix
against the per-matrix operator, the assembled route against the operator route, a plain fixed-point iteration of
C = T(C) + Q (the referee: nothing shared with either solver but the one-step map) and the 50-digit route on an
ill-conditioned design, the certificates (Collatz-Wielandt bounds bracket the spectral radius, the error bound bounds
the error), and the stability bracket (certified ends, a complex pair of equal modulus at the top of the spectrum,
no raw solver error). Finite-k moments against brute-force enumeration: test_linear_gaussian_referee.py."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import scipy.sparse.linalg as spla

import theory.linear_gaussian.noise as noise_mod
from simulate import (
    SVRG,
    AffineParts,
    GaussianMeanModel,
    LinearRegressionModel,
    Minibatch,
    ParameterError,
    Sampler,
    sghmc,
    sgld,
)
from simulate.integrators.langevin import Langevin
from simulate.integrators.sghmc import SGHMC
from theory import exact_law
from theory.linear_gaussian import krylov, symmetric
from theory.linear_gaussian.affine import Parts
from theory.linear_gaussian.noise import NoiseOperator, Scheme


def _design(N: int, d: int, kappa: float, seed: int = 0) -> LinearRegressionModel:
    """Rows z_i = Q diag(s) Q^T w_i with s_j^2 log-spaced over kappa: a posterior precision of condition ~kappa."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    s = kappa ** (-np.arange(d) / (2 * (d - 1)))
    Z = rng.standard_normal((N, d)) @ (Q * s) @ Q.T
    return LinearRegressionModel(Z, Z @ (-0.5) ** np.arange(d) + rng.standard_normal(N), sigma0=1e3)


@pytest.fixture(scope="module")
def ill():
    return _design(200, 4, 1e6)


def _symmetric(rng, n: int) -> np.ndarray:
    A = rng.standard_normal((n, n))
    return A + A.T


@pytest.mark.parametrize("form", ["rank_one", "rank_one_large", "dense", "common"])
def test_pair_matrix_equals_the_per_matrix_operator(form, monkeypatch):
    """The batched apply (through pair_matrix, one product over the data) is the same operator as the one-matrix
    apply (its own formula per form), on random symmetric matrices; 'rank_one_large' forces the rank-one Gram."""
    rng = np.random.default_rng(1)
    src = LinearRegressionModel.simulate_data(60, dim=3, seed=2, scale_spread=0.8).affine_parts()
    if form == "dense":
        src = AffineParts.dense(src.prior_precision, src.prior_shift, src.datum_precisions(np.arange(60)),
                                src.shifts + rng.standard_normal(src.shifts.shape))
    elif form == "common":
        src = GaussianMeanModel.simulate_data(60, theta_true=np.zeros(3), dim=3, seed=1).affine_parts()
    elif form == "rank_one_large":
        monkeypatch.setattr(noise_mod, "PAIR_CENTRED_MAX_WORK", 0)
    op = NoiseOperator(Parts.of(src), Scheme.stratified([np.arange(25), np.arange(25, 60)], (3, 7), False))
    Y = np.stack([_symmetric(rng, 4) for _ in range(3)])
    one = np.stack([op.apply(y) for y in Y])
    assert np.abs(op.apply(Y) - one).max() <= 1e-13 * np.abs(one).max()


def test_symmetric_coordinates():
    rng = np.random.default_rng(0)
    A, X, G = rng.standard_normal((3, 4)), _symmetric(rng, 4), rng.standard_normal((4, 4))
    assert np.allclose(symmetric.unpack(symmetric.pack(X), 4), X)
    assert np.allclose(symmetric.congruence(A) @ symmetric.pack(X), symmetric.pack(A @ X @ A.T))
    assert np.isclose(symmetric.dual(G) @ symmetric.pack(X), np.sum(G * X))
    g, a = rng.standard_normal(4), rng.standard_normal(4)
    assert np.allclose(symmetric.outer_dual(a) @ g, symmetric.dual(np.outer(g, a)))
    W = symmetric.congruence(rng.standard_normal((4, 4)))
    assert np.allclose(symmetric.expand(W, 4) @ X.reshape(-1), symmetric.unpack(W @ symmetric.pack(X), 4).reshape(-1))


def _fixed_point(law) -> np.ndarray:
    """Referee: C <- T(C) + Q iterated with the one-step map (no preconditioner, no linear algebra) until it stops."""
    K = law._centred_or_raw[0]
    D = K.layout.D
    S = np.zeros((D + 1, D + 1))
    S[D, D] = 1.0
    for _ in range(5000):
        new = S
        for p in range(K.period):
            new = K.second(p, new)
        if np.abs(new - S).max() <= 1e-17 * np.abs(new).max():
            break
        S = new
    return new[: law.d, : law.d]


CASES = [(Minibatch(5), Langevin(), 0.6), (Minibatch(5, True), SGHMC(0.3), 0.2), (SVRG(4, 3), Langevin(), 0.5)]


@pytest.mark.parametrize("est,integ,hl", CASES)
def test_both_routes_equal_the_plain_fixed_point(est, integ, hl):
    """A well-conditioned design (condition 10), where iterating C <- T(C) + Q converges in a few hundred periods."""
    m = _design(200, 4, 10.0, seed=4)
    s = Sampler(m, est, integ, hl / m.grad_lipschitz)
    a, b = exact_law(s), exact_law(s)
    b.explicit = False
    ref = _fixed_point(a)
    for law in (a, b):
        C = law.stationary_cov(phase=0 if law.period > 1 else None)
        assert np.abs(C - ref).max() <= 1e-12 * np.abs(ref).max()


@pytest.mark.parametrize("est,integ,hl", CASES)
def test_routes_agree_with_each_other_and_mpmath_at_condition_1e6(ill, est, integ, hl):
    """On a design with condition number 1e6 the two routes (one LU on the assembled map; Krylov on the operator,
    sharing only the one-step map) agree, their Collatz-Wielandt bounds bracket the spectral radius, and mpmath at
    50 digits (states up to D = 8) is within each route's certified error bound (Collatz-Wielandt; regular
    splitting) and within 1e-14 / (1 - rho), the rounding that the conditioning of C = T(C) + Q allows."""
    s = Sampler(ill, est, integ, hl / ill.grad_lipschitz)
    a, b = exact_law(s), exact_law(s)
    b.explicit = False
    assert a.explicit and a.stationary_solve.route == "assembled" and b.stationary_solve.route == "operator"
    phase = 0 if a.period > 1 else None
    Ca, Cb = a.stationary_cov(phase=phase), b.stationary_cov(phase=phase)
    assert np.abs(Ca - Cb).max() <= 1e-9 * np.abs(Ca).max()
    rho = a.spectral_radius() ** a.period
    for sol in (a.stationary_solve, b.stationary_solve):
        lo, hi = sol.radius_bounds
        assert sol.stable and lo <= rho * (1 + 1e-12) and rho <= hi * (1 + 1e-12)
    if a.state_dim <= 8:
        with mpmath.workdps(50):
            exact = np.array(a.mp(50).stationary_cov(), dtype=float)
        for law, C in ((a, Ca), (b, Cb)):
            err = np.linalg.norm(C - exact, 2) / np.linalg.norm(exact, 2)
            assert err <= law.stationary_solve.error_bound and err < 1e-14 / (1.0 - rho)  # the conditioning's rounding


def test_operator_route_converges_on_badly_scaled_states():
    """SVRG's anchor gradient is N times theta's scale: the equilibrated residual lets the operator route converge
    (the old unscaled rule stalled there and GMRES gave up) and agree with the assembled route block by block."""
    m = _design(2000, 3, 1e4, seed=3)
    s = Sampler(m, SVRG(10, 5), Langevin(), 0.5 / m.grad_lipschitz)
    a, b = exact_law(s), exact_law(s)
    b.explicit = False
    Ca, Cb = a.stationary_cov(phase=0, whole_state=True), b.stationary_cov(phase=0, whole_state=True)
    sd = np.sqrt(np.diag(Ca))
    assert np.abs((Ca - Cb) / np.outer(sd, sd)).max() < 1e-9


def _diabetes() -> LinearRegressionModel:
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    X, y = (X - X.mean(0)) / X.std(0), (y - y.mean()) / y.std()
    return LinearRegressionModel(X, y, sigma=1.0, sigma0=10.0)


def test_stability_limit_of_full_gradient_sghmc_on_diabetes():
    """Issue 27's crash: SGHMC at n = N on the diabetes regression, where the underdamped modes put many eigenvalues
    of T at the same modulus 1 - alpha (ARPACK's 'largest magnitude' did not converge). The bracket is certified
    (from above by rho(T) >= rho(Phi)^2) and contains the closed form: with the full gradient on a Gaussian target
    the edge is eta L = 4 - 2 alpha (Jury criterion; simulate.integrators.sghmc), L the largest posterior precision."""
    m = _diabetes()
    law = exact_law(sghmc(m, 1.0 / m.grad_lipschitz, 0.1, n=m.n_data))
    br = law.stability_bracket(1e-9)
    assert br.certificate == "mean" and br.rho_lo < 1.0 <= br.rho_hi and br.hi - br.lo <= 1e-9 * br.hi
    edge = 3.8 / m.grad_lipschitz
    assert br.lo <= edge * (1 + 1e-12) and edge <= br.hi * (1 + 1e-12)
    assert 0.9 < law.spectral_radius() < 1.0  # the dense eigenvalues separate the modulus ties: no solver error


@pytest.mark.parametrize("n", [1, 10])
def test_stability_bracket_ends_are_stable_and_unstable(n):
    m = _diabetes()
    for make in (lambda h: sgld(m, h, n), lambda h: sghmc(m, h, 0.1, n=n)):
        law = exact_law(make(1.0 / m.grad_lipschitz))
        br = law.stability_bracket(1e-8)
        assert br.certificate == "collatz-wielandt" and br.rho_hi >= 1.0 > br.rho_lo
        assert exact_law(make(br.lo)).spectral_radius() < 1.0 <= exact_law(make(br.hi)).spectral_radius() ** 1
        assert br.hi - br.lo <= 1e-8 * br.hi and br.solves <= 25


def test_no_raw_solver_error_reaches_the_user(monkeypatch):
    """If Arnoldi fails, the spectral radius comes from Collatz-Wielandt bounds by power iteration; a bracket that
    does not close is a ParameterError, never an ARPACK exception."""
    m = LinearRegressionModel.simulate_data(40, dim=3, seed=1)
    law = exact_law(sghmc(m, 0.3 / m.grad_lipschitz, 0.2, n=5))
    law.explicit = False
    exact = exact_law(sghmc(m, 0.3 / m.grad_lipschitz, 0.2, n=5)).spectral_radius()

    def fail(*args, **kwargs):
        raise spla.ArpackNoConvergence("no convergence", np.array([]), np.array([]))

    monkeypatch.setattr(spla, "eigs", fail)
    assert law.spectral_radius() == pytest.approx(exact, rel=1e-8)
    monkeypatch.setattr(krylov, "POWER_MAX", 3)
    with pytest.raises(ParameterError, match="spectral radius is not resolved"):
        law.spectral_radius()


def test_unstable_step_names_the_limit(ill):
    law = exact_law(sgld(ill, 3.99 / ill.grad_lipschitz, 1))
    with pytest.raises(ParameterError, match=r"not mean-square stable .* limit of this sampler is h\* = "):
        law.stationary_cov()
    assert not law.stationary_solve.stable
    with pytest.raises(ParameterError, match="rtol must satisfy"):
        law.stability_bracket(0.7)


@pytest.mark.parametrize("make", [lambda m, h: sgld(m, h, 5), lambda m, h: sghmc(m, h, 0.3, n=5)])
def test_time_average_routes_agree(make, monkeypatch):
    """The MSE of a time average by the O(log L) matrix route on symmetric coordinates (also where the law does not
    assemble its maps for its solves), by the transient stepped with the assembled map, and by the operator route
    (transient stepped through the data), at condition 10 (the
    transient routes step until the chain has mixed: at condition 1e6 only the matrix route answers in time)."""
    import theory.linear_gaussian.time_average as ta

    ill = _design(200, 4, 10.0, seed=5)
    law = exact_law(make(ill, 0.3 / ill.grad_lipschitz), theta0=np.ones(4))
    a = np.array([1.0, -1.0, 0.5, 0.0])
    for L, b in ((7, 0), (10**4, 30), (10**9, 10**3)):
        auto = law.time_average(a, n_steps=L, burn_in=b)
        with monkeypatch.context() as mp:
            mp.setattr(ta, "_closed_sums", lambda *args: None)
            matrix = law.time_average(a, n_steps=L, burn_in=b)
        with monkeypatch.context() as mp:
            mp.setattr(ta, "EXPLICIT_MAX_DIM", 0)
            transient = law.time_average(a, n_steps=L, burn_in=b)
        op = exact_law(make(ill, 0.3 / ill.grad_lipschitz), theta0=np.ones(4))
        op.explicit = False
        own = op.time_average(a, n_steps=L, burn_in=b)  # a law that does not assemble: the route assembles itself
        with monkeypatch.context() as mp:
            mp.setattr(ta, "PERIOD1_MAX_DIM", 0)
            operator = op.time_average(a, n_steps=L, burn_in=b)
        for x in (matrix, transient, operator, own):
            assert x.mse == pytest.approx(auto.mse, rel=1e-8) and x.mean == pytest.approx(auto.mean, rel=1e-10)


def test_stability_bracket_by_operators_agrees():
    """The operator route's trials (Krylov solves of X - T(X) = I) bracket the same h* as the assembled route's."""
    m = LinearRegressionModel.simulate_data(200, dim=4, seed=2)
    for make in (lambda h: sgld(m, h, 5), lambda h: sghmc(m, h, 0.2, n=5)):
        a, b = exact_law(make(0.5 / m.grad_lipschitz)), exact_law(make(0.5 / m.grad_lipschitz))
        b.explicit = False
        ba, bb = a.stability_bracket(1e-8), b.stability_bracket(1e-8)
        assert max(ba.lo, bb.lo) < min(ba.hi, bb.hi) and bb.certificate != "none"


def test_bracket_meets_rtol_where_the_certificates_have_no_margin():
    """vrSG-MCMC (n1 = 10, n2 = 1, m = 10) on scikit-learn's standardised diabetes regression (condition number 469):
    within about 1% of h* the Collatz-Wielandt bounds place neither side, and the bracket was 0.5-1% wide whatever
    rtol asked (stability_limit() then returned an h with rho(T) = 1.01). The computed spectral radius now narrows it
    to rtol, and both ends are on their sides."""
    from sklearn.datasets import load_diabetes

    from simulate import LinearRegressionModel
    from simulate import samplers as named

    Z, y = load_diabetes(return_X_y=True)
    Z, y = (Z - Z.mean(0)) / Z.std(0), (y - y.mean()) / y.std()
    model = LinearRegressionModel(Z, y, sigma=1.0, sigma0=10.0)
    law = exact_law(named.vrsgld(model, 1e-5, 10, 1, 10))
    br = law.stability_bracket(1e-4)
    assert br.hi - br.lo <= 1e-4 * br.hi
    lo, hi = (exact_law(named.vrsgld(model, h, 10, 1, 10)) for h in (br.lo, br.hi))
    assert lo.spectral_radius() < 1.0 <= hi.spectral_radius()
