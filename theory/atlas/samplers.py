"""The atlas's samplers, built from a problem, the step h (workbench units) and a minibatch size n: the same
simulator objects :func:`simulate.run` runs and :func:`theory.exact_law` reads.

    ula       Euler-Maruyama with the full gradient (:func:`simulate.euler`)
    sgld      SGLD, n of N without replacement (:func:`simulate.sgld`)
    sgld_cv   SGLD-CV with the control variate at the posterior mode (:func:`simulate.sgld_cv`)
    svrgld    SVRG-LD with epoch length N/n (Chatterji et al.'s tau; :func:`simulate.svrgld`)
    saga_ld   SAGA-LD (:func:`simulate.saga_ld`)
    ulmc      underdamped Langevin MCMC, friction 2, u = 1/M, v_0 = 0 (:func:`simulate.ulmc`)
    cv_uld    the same with the control-variate gradient (Chatterji et al.'s CV-ULD)
"""

from __future__ import annotations

from simulate import control_variate, euler, saga_ld, sgld, sgld_cv, svrgld, ulmc
from simulate.validation import ParameterError

#: Samplers whose law is Gaussian on a Gaussian target from a Gaussian start (full gradients).
GAUSSIAN_SAMPLERS = ("ula", "ulmc")
#: Samplers with a momentum (their joint law of (x, v) is available).
UNDERDAMPED = ("ulmc", "cv_uld")
#: Samplers that take a minibatch size.
MINIBATCH = ("sgld", "sgld_cv", "svrgld", "saga_ld", "cv_uld")


def build_sampler(prob, name: str, h: float, n: int | None):
    """The simulator sampler ``name`` on ``prob`` at step h (minibatch n where it takes one).

    Parameters
    ----------
    prob : AtlasProblem
        The test problem.
    name : str
        The atlas sampler, one of ``prob.samplers``.
    h : float
        The step size.
    n : int or None
        The minibatch size for a stochastic-gradient sampler, None otherwise.

    Returns
    -------
    Sampler
        The sampler.

    Raises
    ------
    ParameterError
        When the sampler does not run on the problem, or ``n`` does not match it.
    """
    if name not in prob.samplers:
        raise ParameterError(f"sampler {name!r} does not run on atlas problem {prob.name!r} (p = {prob.p}, "
                             f"N = {prob.N}); it runs {', '.join(prob.samplers)}")
    if (name in MINIBATCH) != (n is not None):
        raise ParameterError(f"sampler {name!r}: n must be {'a minibatch size' if name in MINIBATCH else 'None'}, "
                             f"got {n!r}")
    model = prob.model
    if name == "ula":
        return euler(model, h)
    if name == "sgld":
        return sgld(model, h, n)
    if name == "sgld_cv":
        return sgld_cv(model, h, n, theta_hat=prob.mean)
    if name == "svrgld":
        return svrgld(model, h, n, max(1, prob.N // n))
    if name == "saga_ld":
        return saga_ld(model, h, n)
    u = 1.0 / prob.M
    if name == "ulmc":
        return ulmc(model, h, u=u, v0_var=0.0)
    return ulmc(model, h, u=u, estimator=control_variate(model, n, prob.mean), v0_var=0.0)


__all__ = ["GAUSSIAN_SAMPLERS", "MINIBATCH", "UNDERDAMPED", "build_sampler"]
