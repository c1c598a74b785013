"""Every named sampler of the workbench, one line each: an integrator composed with a gradient estimator.

Step-size convention (:mod:`simulate.conventions`): theta' = theta + (h/2) g + sqrt(h) xi for the Langevin family;
SGHMC's learning rate is ``h`` (Chen, Fox & Guestrin 2014 eq. 15). Each constructor returns a
:class:`simulate.Sampler`; the step size is checked against the integrator's bound from the model's gradient Lipschitz
constant when the model states one. Adding a sampler is one estimator or integrator module plus one line here
(docs/add_a_sampler.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from .contracts import GradientEstimator, Model
from .estimators.allocation import allocate
from .estimators.control_variates import control_variate
from .estimators.estimated_cov import EstimatedCovMinibatch
from .estimators.minibatch import FullGradient, Minibatch
from .estimators.saga import SAGA
from .estimators.strata import Strata
from .estimators.stratified import Stratified, stratified_estimator
from .estimators.vr import SVRG, VRMinibatch
from .integrators.langevin import Langevin, ModifiedLangevin, NoiselessLangevin
from .integrators.preconditioned import PreconditionedLangevin
from .integrators.psgld import AdaptivePreconditionedLangevin
from .integrators.sghmc import SGHMC
from .integrators.sgrld import ExpandedMeanLangevin
from .integrators.ulmc import UnderdampedLangevinMC
from .models.lda import LDAModel
from .sampler import Sampler
from .validation import ParameterError


def euler(model: Model, h: float) -> Sampler:
    """Euler-Maruyama with the full gradient: the unadjusted Langevin algorithm (ULA), the 'Euler' baseline.

    theta' = theta + (h/2) grad log pi(theta) + sqrt(h) xi,  xi ~ N(0, I).

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).

    Returns
    -------
    Sampler
        ``FullGradient()`` under ``Langevin()`` (``name`` 'euler').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L).

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eq. (2) (:doc:`/papers/vollmer`, sec. 2).
    """
    return Sampler(model, FullGradient(), Langevin(), h, name="euler")


def sgld(model: Model, h: float, n: int, replace: bool = False) -> Sampler:
    """SGLD: the Langevin step with a minibatch estimate of the gradient (Welling & Teh 2011).

    theta' = theta + (h/2) [grad log pi_0(theta) + (N/n) sum_{i in tau} grad log p(x_i | theta)] + sqrt(h) xi, with
    tau a fresh minibatch of size n every step and xi ~ N(0, I).

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n : int
        Minibatch size, 1 <= n <= N.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.

    Returns
    -------
    Sampler
        ``Minibatch(n, replace)`` under ``Langevin()`` (``name`` 'sgld').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), n is not in 1..N or replace is not a bool.

    References
    ----------
    Welling & Teh (2011), eq. (4); Vollmer, Zygalakis & Teh (2016), eqs. (5)-(6) (:doc:`/papers/vollmer`, sec. 2).

    Examples
    --------
    >>> from simulate import GaussianMeanModel, sgld
    >>> model = GaussianMeanModel.simulate_data(1000, theta_true=1.0, seed=2016)
    >>> sampler = sgld(model, h=0.1 / model.A, n=10)
    >>> sampler.name, sampler.grads_per_step()
    ('sgld', 10.0)
    """
    return Sampler(model, Minibatch(n, replace), Langevin(), h, name="sgld")


def sgld_preconditioned(model: Model, h: float, n: int, G, replace: bool = False) -> Sampler:
    """SGLD with a fixed preconditioner G (pSGLD's form with G constant).

    theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi, g the minibatch gradient of :func:`sgld`; its stationary law
    targets the posterior as h -> 0 for any symmetric positive definite G.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4 / (L lambda_max(G)) (the mean's stability limit; L = ``model.grad_lipschitz``).
    n : int
        Minibatch size, 1 <= n <= N.
    G : array_like, shape (d, d)
        The preconditioner: finite, symmetric, positive definite.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.

    Returns
    -------
    Sampler
        ``Minibatch(n, replace)`` under ``PreconditionedLangevin(G)`` (``name`` 'sgld_preconditioned').

    Raises
    ------
    ParameterError
        When G is not a finite symmetric positive definite (d, d) matrix, h is not in (0, 4 / (L lambda_max(G))),
        n is not in 1..N or replace is not a bool.

    References
    ----------
    Li, Chen, Carlson & Carin (2016), Algorithm 1, with the preconditioner held constant (no adaptation, hence no
    Gamma correction term); :doc:`/add_a_sampler` derives its exact law.
    """
    return Sampler(model, Minibatch(n, replace), PreconditionedLangevin(G), h, name="sgld_preconditioned")


def psgld(model: Model, h: float, n: int, alpha: float = 0.99, lam: float = 1e-5, replace: bool = False) -> Sampler:
    """pSGLD: SGLD with RMSprop's adaptive diagonal preconditioner (Li et al. 2016); it has no exact law.

    V <- alpha V + (1 - alpha) g_bar * g_bar with g_bar = g / N the mean per-datum gradient, G = diag(1 / (lam +
    sqrt(V))), then theta' = theta + (h/2) G g + sqrt(h) G^{1/2} xi (the Gamma correction term of the paper is
    dropped, as in its experiments). The preconditioner depends on the gradients, so the step is not affine in the
    state: :func:`theory.exact_law` refuses it, and it is checked by simulation against the posterior.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, h > 0 (no bound from L: the preconditioner adapts).
    n : int
        Minibatch size, 1 <= n <= N.
    alpha : float, default 0.99
        RMSprop's decay, 0 < alpha < 1.
    lam : float, default 1e-5
        The regulariser lambda > 0 of the preconditioner.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.

    Returns
    -------
    Sampler
        ``Minibatch(n, replace)`` under ``AdaptivePreconditionedLangevin(N, alpha, lam)`` (``name`` 'psgld').

    Raises
    ------
    ParameterError
        When h <= 0, alpha is not in (0, 1), lam <= 0, n is not in 1..N or replace is not a bool.

    References
    ----------
    Li, Chen, Carlson & Carin (2016), Algorithm 1 (:doc:`/add_a_sampler`).
    """
    integ = AdaptivePreconditionedLangevin(model.n_data, alpha, lam)
    return Sampler(model, Minibatch(n, replace), integ, h, name="psgld")


def msgld(model: Model, h: float, n: int, replace: bool = False) -> Sampler:
    """Modified SGLD: the injected noise reduced by the exact gradient-noise covariance (Vollmer et al.).

    theta' = theta + (h/2) g + sqrt(h) (I - (h/8) Cov[g | theta]) xi with g the minibatch gradient of :func:`sgld`:
    the O(h) gradient-noise term of the stationary bias cancels. (``(h/8) Cov g`` is eq. (54)'s (h/2) Cov fhat with
    fhat = g/2; eq. (9) as printed has (h/2) Cov g, an erratum: :func:`msgld_estimated_cov` with
    ``cov_multiplier=4`` runs the printed scheme.)

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n : int
        Minibatch size, 1 <= n <= N.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.

    Returns
    -------
    Sampler
        ``Minibatch(n, replace)`` under ``ModifiedLangevin()`` (``name`` 'msgld').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), n is not in 1..N or replace is not a bool.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), eqs. (9), (51), (54), and eq. (20) on the Gaussian toy
    (:doc:`/papers/vollmer`, secs. 2, 3 and 11).
    """
    return Sampler(model, Minibatch(n, replace), ModifiedLangevin(), h, name="msgld")


def msgld_estimated_cov(model: Model, h: float, n: int, replace: bool = False,
                        cov_multiplier: float = 1.0) -> Sampler:
    """mSGLD with the gradient-noise covariance estimated from each step's minibatch (Vollmer et al.'s Remark 7).

    As :func:`msgld`, with Cov[g | theta] replaced by ``cov_multiplier`` times its unbiased estimate from the n
    per-datum gradients of the same step.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n : int
        Minibatch size, 2 <= n <= N (a covariance needs two per-datum gradients).
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.
    cov_multiplier : float, default 1.0
        Factor on the estimated covariance, > 0. 1: eq. (54) (Remark 7); 4: eq. (9) as printed.

    Returns
    -------
    Sampler
        ``EstimatedCovMinibatch(n, replace, cov_multiplier)`` under ``ModifiedLangevin()`` (``name``
        'msgld_covhat', or 'msgld_covhat_x<multiplier>' for another multiplier).

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), n is not in 2..N, cov_multiplier <= 0 or replace is not a bool.

    References
    ----------
    Vollmer, Zygalakis & Teh (2016), Remark 7 (arXiv Remark 4.2), eqs. (9) and (54) (:doc:`/papers/vollmer`).
    """
    name = "msgld_covhat" if cov_multiplier == 1.0 else f"msgld_covhat_x{cov_multiplier:g}"
    return Sampler(model, EstimatedCovMinibatch(n, replace, cov_multiplier), ModifiedLangevin(), h, name=name)


def sgld_cv(model: Model, h: float, n: int, theta_hat=None, replace: bool = False, **opt) -> Sampler:
    """SGLD-CV: the Langevin step with a control-variate gradient centred at theta_hat (Baker et al. 2019).

    g_CV(theta) = grad log pi(theta_hat) + grad log pi_0(theta) - grad log pi_0(theta_hat) + (N/n) sum_{i in tau}
    [g_i(theta) - g_i(theta_hat)], the same minibatch tau at both points; theta' = theta + (h/2) g_CV + sqrt(h) xi.
    The paper starts the chain at theta_hat (the optimisation replaces burn-in): pass
    ``theta0=sampler.estimator.theta_hat`` to :func:`simulate.run`.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n : int
        Minibatch size, 1 <= n <= N.
    theta_hat : array_like, shape (d,), optional
        The centre. None: found by :func:`simulate.sgd_mode` (minibatch SGD with averaging, then full-gradient
        refinement), which costs per-datum gradients before the first step.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.
    **opt
        Settings of the mode search when ``theta_hat`` is None: ``opt_step``, ``opt_iters`` (default 10000),
        ``opt_n`` (default n), ``opt_seed`` (default 0), ``opt_refine`` (default 200); see
        :func:`simulate.sgd_mode`.

    Returns
    -------
    Sampler
        ``control_variate(model, n, theta_hat, replace, **opt)`` under ``Langevin()`` (``name`` 'sgld_cv').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), n is not in 1..N or theta_hat is not a finite vector of length d.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 4.1, Algorithm 1 and the estimate "(4.1)"
    (:doc:`/papers/baker`, sec. 1.3).
    """
    return Sampler(model, control_variate(model, n, theta_hat, replace, **opt), Langevin(), h, name="sgld_cv")


def vrsgld(model: Model, h: float, n1: int, n2: int, m: int, replace: bool = False) -> Sampler:
    """vrSGLD: Chen et al.'s variance-reduced SG-MCMC (Algorithm 1) with the SGLD step.

    Every m steps the anchor theta_tilde is set to the current state and its gradient estimated from an anchor
    minibatch of size n1; each step uses g = grad log pi_0(theta) + (anchor estimate) + (N/n2) sum_{i in tau}
    [g_i(theta) - g_i(theta_tilde)], then theta' = theta + (h/2) g + sqrt(h) xi. The paper writes the step as
    theta + eps g + sqrt(2 eps) xi: h = 2 eps (:func:`simulate.from_chen_step`).

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n1 : int
        Anchor minibatch size, 2 <= n1 <= N.
    n2 : int
        Minibatch size of each step, 1 <= n2 < n1.
    m : int
        Epoch length: steps between anchor refreshes, m >= 1.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.

    Returns
    -------
    Sampler
        ``VRMinibatch(n1, n2, m, replace)`` under ``Langevin()`` (``name`` 'vrsgld').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), n1, n2 or m are out of their ranges or replace is not a bool.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1 with NextS = SGLD (:doc:`/papers/chen`, secs. 2 and 4).
    """
    return Sampler(model, VRMinibatch(n1, n2, m, replace), Langevin(), h, name="vrsgld")


def svrgld(model: Model, h: float, n2: int, m: int) -> Sampler:
    """SVRG-LD: the Langevin step with the SVRG gradient, a full-data anchor refreshed every m steps (Dubey et al.).

    :func:`vrsgld` with the anchor's gradient computed on all N data.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n2 : int
        Minibatch size of each step, 1 <= n2 < N.
    m : int
        Epoch length: steps between anchor refreshes, m >= 1.

    Returns
    -------
    Sampler
        ``SVRG(n2, m)`` under ``Langevin()`` (``name`` 'svrgld').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), N < 2, or n2 or m are out of their ranges.

    References
    ----------
    Dubey, Reddi, Poczos, Smola, Xing & Williamson (2016), SVRG-LD; Chen, Wang, Zhang, Su & Carin (2019),
    Algorithm 1 with n1 = N (:doc:`/papers/chen`, sec. 4).
    """
    return Sampler(model, SVRG(n2, m), Langevin(), h, name="svrgld")


def saga_ld(model: Model, h: float, n: int, noise: bool = True) -> Sampler:
    """SAGA-LD: the Langevin step with the SAGA gradient, a table of per-datum gradients (Dubey et al. 2016).

    g = sum_i G_i + grad log pi_0(theta) + (N/n) sum_{i in tau} [g_i(theta) - G_i], then G_i <- g_i(theta) for i
    in tau; the table starts at theta_0. It holds M N d numbers (the run checks they fit in memory).

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    n : int
        Minibatch size, 1 <= n <= N.
    noise : bool, default True
        True: Dubey et al.'s SAGA-LD (injected noise sqrt(h) xi). False: the map printed in Baker et al.
        Sec. 4.4, with no injected noise (stochastic gradient ascent; an erratum the workbench registered).

    Returns
    -------
    Sampler
        ``SAGA(n)`` under ``Langevin()`` (``NoiselessLangevin()`` with ``noise=False``) (``name`` 'saga_ld').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L) or n is not in 1..N.

    References
    ----------
    Dubey, Reddi, Poczos, Smola, Xing & Williamson (2016), SAGA-LD; Baker, Fearnhead, Fox & Nemeth (2019),
    Section 4.4 (:doc:`/papers/baker`, secs. 1.4 and 6).
    """
    return Sampler(model, SAGA(n), Langevin() if noise else NoiselessLangevin(), h, name="saga_ld")


def sghmc(model: Model, h: float, alpha: float, estimator: GradientEstimator | None = None, n: int | None = None,
          replace: bool = False, resample_every: int | None = None) -> Sampler:
    """SGHMC with learning rate h = eta and friction alpha (Chen, Fox & Guestrin 2014, eq. (15)).

    v' = (1 - alpha) v + h g(theta) + sqrt(2 alpha h) xi, theta' = theta + v' (unit mass, beta_hat = 0), the
    momentum starting at N(0, h I). With ``estimator=FullGradient()`` it is full-gradient HMC with friction.

    Here h is the learning rate eta = eps^2 of Chen et al.'s eq. (15), eps the time step of the Hamiltonian dynamics
    and alpha = eps C (``SGHMC.from_friction`` converts), not the time step h of the Langevin
    samplers' theta' = theta + (h/2) g + sqrt(h) xi: the same number is not the same discretisation. The Langevin
    step matched to eta is 2 eta / alpha (the same drift and diffusion per step over many steps; at alpha = 1 this
    sampler is exactly ``sgld`` with h = 2 eta): ``theory.tradeoffs.langevin_equivalent_step``. Compare SGHMC with
    SGLD at a matched cost (gradient evaluations), each at its own h, and at matched discretisation, as
    ``theory.tradeoffs.tradeoffs`` does.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Learning rate eta, 0 < h < (4 - 2 alpha)/L (the stability limit on a Gaussian target, by the Jury
        criterion; L = ``model.grad_lipschitz``).
    alpha : float
        Friction per step, 0 < alpha <= 1.
    estimator : GradientEstimator, optional
        The gradient estimator (e.g. a control variate: SGHMC-CV, Baker et al. Sec. 4). Give exactly one of
        ``estimator`` and ``n``.
    n : int, optional
        Minibatch size, 1 <= n <= N: the estimator is then ``Minibatch(n, replace)``.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.
    resample_every : int, optional
        L >= 1: the momentum is redrawn from N(0, h I) after every L steps (Baker et al. Sec. 2.4's trajectories).
        None: never redrawn.

    Returns
    -------
    Sampler
        ``estimator`` under ``SGHMC(alpha, resample_every)`` (``name`` 'sghmc').

    Raises
    ------
    ParameterError
        When neither or both of ``estimator`` and ``n`` are given, alpha is not in (0, 1], h is not in
        (0, (4 - 2 alpha)/L), resample_every < 1, or the estimator does not fit the model.

    References
    ----------
    Chen, Fox & Guestrin (2014), eq. (15); Baker, Fearnhead, Fox & Nemeth (2019), Section 2.4
    (:doc:`/papers/baker`, sec. 1.2).
    """
    if estimator is None:
        if n is None:
            raise ParameterError("sghmc needs either an estimator or a minibatch size n (1 <= n <= N)")
        estimator = Minibatch(n, replace)
    elif n is not None:
        raise ParameterError("sghmc takes either estimator or n, not both")
    return Sampler(model, estimator, SGHMC(alpha, resample_every), h, name="sghmc")


def sghmc_cv(model: Model, h: float, alpha: float, n: int, theta_hat=None, replace: bool = False,
             resample_every: int | None = None, **opt) -> Sampler:
    """SGHMC-CV: the SGHMC integrator with the control-variate gradient (Baker et al. 2019, Section 4).

    :func:`sghmc` with the estimator of :func:`sgld_cv`.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Learning rate eta, 0 < h < (4 - 2 alpha)/L.
    alpha : float
        Friction per step, 0 < alpha <= 1.
    n : int
        Minibatch size, 1 <= n <= N.
    theta_hat : array_like, shape (d,), optional
        The centre; None: found by :func:`simulate.sgd_mode`.
    replace : bool, default False
        False: the minibatch is a uniform n-subset of the data, drawn afresh each step; True: n iid uniform indices.
    resample_every : int, optional
        Steps between momentum redraws (None: never).
    **opt
        Settings of the mode search when ``theta_hat`` is None, as for :func:`sgld_cv`.

    Returns
    -------
    Sampler
        ``control_variate(model, n, theta_hat, replace, **opt)`` under ``SGHMC(alpha, resample_every)``
        (``name`` 'sghmc_cv').

    Raises
    ------
    ParameterError
        When alpha, h, n, theta_hat or resample_every are out of their ranges.

    References
    ----------
    Baker, Fearnhead, Fox & Nemeth (2019), Section 4 (SGHMC-CV); Chen, Fox & Guestrin (2014), eq. (15)
    (:doc:`/papers/baker`, secs. 1.2-1.3).
    """
    est = control_variate(model, n, theta_hat, replace, **opt)
    return Sampler(model, est, SGHMC(alpha, resample_every), h, name="sghmc_cv")


def ulmc(model: Model, h: float, gamma: float = 2.0, u: float | None = None,
         estimator: GradientEstimator | None = None, v0_var: float | None = None) -> Sampler:
    """Underdamped Langevin MCMC: the exact frozen-gradient flow over a time step h.

    Friction ``gamma`` (default 2) and inverse mass ``u`` (default 1/L, L the model's gradient Lipschitz constant),
    full gradient by default; with a control-variate ``estimator`` it is CV-ULD.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        The time step delta > 0.
    gamma : float
        The friction, > 0.
    u : float, optional
        The inverse mass, > 0 (default 1/L).
    estimator : GradientEstimator, optional
        The gradient estimator (default :class:`simulate.FullGradient`; a control variate gives CV-ULD).
    v0_var : float, optional
        The variance per coordinate of the momentum's start law N(0, v0_var I) (default u, the stationary momentum
        law; 0 is Cheng et al.'s start).

    Returns
    -------
    Sampler
        The sampler, named "ulmc".

    Raises
    ------
    ParameterError
        When ``u`` is left to its default and the model declares no ``grad_lipschitz``, or a parameter is out of its
        range.

    References
    ----------
    Cheng, Chatterji, Bartlett & Jordan (2018), COLT, PMLR 75, Algorithm 1 (ULMC); Chatterji, Flammarion, Ma, Bartlett
    & Jordan (2018), ICML, PMLR 80, Algorithm 3 (CV-ULD).
    """
    if u is None:
        if model.grad_lipschitz is None:
            raise ParameterError("ulmc: u defaults to 1/L, and this model declares no grad_lipschitz; pass u")
        u = 1.0 / model.grad_lipschitz
    integ = UnderdampedLangevinMC(gamma=gamma, u=u, v0_var=v0_var)
    return Sampler(model, FullGradient() if estimator is None else estimator, integ, h, name="ulmc")


def cp_sgld(model: Model, h: float, strata: Strata, b: int, allocation: str | Sequence[int] = "neyman",
            replace: bool = False) -> Sampler:
    """CP-SGLD: SGLD with Fu & Zhang's stratified (clustered) minibatch gradient (Algorithm 1, fixed step).

    g = grad log pi_0(theta) + sum_i (n_i/b_i) sum_{j in B_i} g_j(theta), B_i a size-b_i draw from cluster C_i,
    independent across clusters (eq. (10)); theta' = theta + (h/2) g + sqrt(h) xi.

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Step size, 0 < h < 4/L (the mean's stability limit; L = ``model.grad_lipschitz``, no upper limit where
        the model states none).
    strata : Strata
        The clusters C_1..C_k of the data (:func:`simulate.kmeans_strata`, or given).
    b : int
        Total minibatch size, k <= b (and b <= N without replacement).
    allocation : {"neyman", "proportional", "uniform"} or sequence of int, default "neyman"
        The per-cluster sizes b_i: Neyman's allocation of eq. (14) (Theorem 3.2, from the data's spread),
        proportional to n_i, uniform, or given (k integers with 1 <= b_i <= n_i summing to b); rounded to integers
        by largest remainders (:func:`simulate.allocate`).
    replace : bool, default False
        Draws inside a cluster without replacement (Algorithm 1) or with it.

    Returns
    -------
    Sampler
        ``stratified_estimator(strata, b, allocation, replace)`` under ``Langevin()`` (``name`` 'cp-sgld').

    Raises
    ------
    ParameterError
        When h is not in (0, 4/L), the strata do not cover the model's N data or the allocation is invalid.

    References
    ----------
    Fu & Zhang (2017), Algorithm 1, eqs. (10) and (14) (:doc:`/papers/fu_zhang`, secs. 2-3).
    """
    return Sampler(model, stratified_estimator(strata, b, allocation, replace), Langevin(), h, name="cp-sgld")


def cp_sghmc(model: Model, h: float, alpha: float, strata: Strata, b: int,
             allocation: str | Sequence[int] = "neyman", replace: bool = False,
             resample_every: int | None = None) -> Sampler:
    """CP-SGHMC: SGHMC with Fu & Zhang's stratified minibatch gradient (Section 4.2).

    Parameters
    ----------
    model : Model
        Any model of the workbench (:class:`simulate.Model`).
    h : float
        Learning rate eta, 0 < h < (4 - 2 alpha)/L.
    alpha : float
        Friction per step, 0 < alpha <= 1.
    strata : Strata
        The clusters C_1..C_k of the data (:func:`simulate.kmeans_strata`, or given).
    b : int
        Total minibatch size, k <= b (and b <= N without replacement).
    allocation : {"neyman", "proportional", "uniform"} or sequence of int, default "neyman"
        The per-cluster sizes b_i: Neyman's allocation of eq. (14) (Theorem 3.2, from the data's spread),
        proportional to n_i, uniform, or given (k integers with 1 <= b_i <= n_i summing to b); rounded to integers
        by largest remainders (:func:`simulate.allocate`).
    replace : bool, default False
        Draws inside a cluster without replacement (Algorithm 1) or with it.
    resample_every : int, optional
        Steps between momentum redraws (None: never).

    Returns
    -------
    Sampler
        ``stratified_estimator(strata, b, allocation, replace)`` under ``SGHMC(alpha, resample_every)``
        (``name`` 'cp-sghmc').

    Raises
    ------
    ParameterError
        When alpha, h or resample_every are out of their ranges, the strata do not cover the model's data or the
        allocation is invalid.

    References
    ----------
    Fu & Zhang (2017), Section 4.2 and eq. (10); Chen, Fox & Guestrin (2014), eq. (15)
    (:doc:`/papers/fu_zhang`, sec. 3).
    """
    est = stratified_estimator(strata, b, allocation, replace)
    return Sampler(model, est, SGHMC(alpha, resample_every), h, name="cp-sghmc")


def sgrld(model: LDAModel, h: float, b: int, strata: Strata | None = None, allocation="neyman",
          replace: bool = False) -> Sampler:
    """SGRLD on LDA (Patterson & Teh 2013), or CP-SGRLD with clustered documents (Fu & Zhang Sec. 4.3).

    The expanded-mean step theta' = ``|theta + (h/2) g + sqrt(h theta) xi|`` (the mirroring keeps theta >= 0), g from
    the Gibbs expectations of a minibatch of documents weighted as in eq. (10).

    Parameters
    ----------
    model : LDAModel
        The topic model (:class:`simulate.LDAModel`).
    h : float
        Step size, h > 0 (the model states no Lipschitz constant).
    b : int
        Documents per step.
    strata : Strata, optional
        Document clusters (:func:`simulate.document_strata`); None: a uniform size-b minibatch of documents.
    allocation : {"neyman", "proportional", "uniform"} or sequence of int, default "neyman"
        Per-cluster sizes with ``strata`` (as for :func:`cp_sgld`); ignored without (proportional on one cluster).
    replace : bool, default False
        Draws inside a cluster without or with replacement.

    Returns
    -------
    Sampler
        ``Stratified(strata, sizes, replace)`` under ``ExpandedMeanLangevin()`` (``name`` 'sgrld' on one cluster,
        'cp-sgrld' on several).

    Raises
    ------
    ParameterError
        When the model is not an LDAModel, h <= 0, or b or the allocation are invalid for the strata.

    References
    ----------
    Patterson & Teh (2013), the expanded-mean parameterisation; Fu & Zhang (2017), Section 4.3
    (:doc:`/papers/fu_zhang`, sec. 3).
    """
    if not isinstance(model, LDAModel):
        raise ParameterError(f"model must be an LDAModel, got {type(model).__name__}")
    if strata is None:
        strata = Strata.single(model.n_data)
        allocation = "proportional"
    est = Stratified(strata, tuple(allocate(strata, b, allocation).tolist()), replace)
    return Sampler(model, est, ExpandedMeanLangevin(), h, name="sgrld" if strata.k == 1 else "cp-sgrld")


__all__ = ["cp_sghmc", "cp_sgld", "euler", "msgld", "msgld_estimated_cov", "psgld", "saga_ld", "sghmc", "sghmc_cv",
           "sgld", "sgld_cv", "sgld_preconditioned", "sgrld", "svrgld", "ulmc", "vrsgld"]
