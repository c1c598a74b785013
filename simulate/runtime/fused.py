"""Fused block programs: a chain block's whole SGLD step in one numba call, several steps at a time.

The generic step loop of :mod:`simulate.runtime.runner` calls the sampler's parts step by step: a dozen numpy and
numba calls per step and block, each holding the GIL between kernels and allocating its temporaries. Where a
sampler is one that ``simulate._fast.kernels`` has fused (SGLD, i.e. ``Minibatch`` x ``Langevin``, on the
isotropic Gaussian mean model or on logistic regression, with the runner's built-in test functions), a block instead
runs through ``simulate._fast.kernels.sgld_steps_gaussian`` / ``sgld_steps_logistic``: the draws, gradient,
update and time-average sums of up to :data:`simulate.runtime.divergence.CHECK_EVERY` steps per call, without the
GIL and into work buffers allocated once per block. So block threads run side by side instead of queueing for the
GIL, and a block's working set stays in the core's cache.

The numbers are the generic loop's to the last bit (the same operations in the same order on the same random
stream; tests/test_fused.py compares the two for every program and option). :data:`ENABLED` switches the fused path
off (tests and benchmarks measure with and without).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._fast import draws as fast_draws
from .._fast import kernels
from ..estimators.minibatch import Minibatch
from ..estimators.subsample import draw_dtype, without_replacement_route
from ..integrators.langevin import Langevin
from ..models.gaussian import GaussianMeanModel
from ..models.logistic import LogisticRegressionModel
from ..sampler import Sampler, SamplerState

#: False: every run takes the generic step loop (the reference the fused programs are tested against).
ENABLED = True


@dataclass(frozen=True)
class FusedProgram:
    """How to run blocks of one sampler through a fused kernel.

    The kernel pair (one thread, parallel over chains), the minibatch draw (N, n, replace, index dtype), the model's
    arguments and the step's constants in the kernel's order (``simulate._fast.kernels``: ``sgld_steps_gaussian``,
    ``sgld_steps_logistic``).

    Parameters
    ----------
    serial, parallel : callable
        The kernel on one thread, and parallel over chains.
    n_data : int
        N, the number of data.
    n : int
        The minibatch size.
    replace : bool
        Whether minibatches are drawn with replacement.
    dtype : type
        The index dtype of the draws.
    model_args : tuple
        The model's arrays and the step's constants, in the kernel's order.
    stats : tuple of bool
        Whether the time averages of theta and of theta^2 are asked for.
    """

    serial: Any
    parallel: Any
    n_data: int
    n: int
    replace: bool
    dtype: type
    model_args: tuple
    stats: tuple[bool, bool]  # time averages of theta, theta^2 asked for

    def block(self, theta: np.ndarray, rng: np.random.Generator, burn_in: int, n_steps: int, total: int,
              threads: int) -> FusedBlock:
        """The work buffers of one block of chains with its generator.

        Parameters
        ----------
        theta : numpy.ndarray
            The block's states, shape (m, d), advanced in place.
        rng : numpy.random.Generator
            The block's generator.
        burn_in : int
            The first step whose state enters the time averages.
        n_steps : int
            The number of states averaged (0: none).
        total : int
            The number of steps the block takes.
        threads : int
            Threads of the kernel (more than 1: the kernel parallel over chains).

        Returns
        -------
        FusedBlock
            The block's fused run.
        """
        return FusedBlock(self, theta, rng, burn_in, n_steps, total, threads)


def program_for(sampler: Sampler, phis: dict) -> FusedProgram | None:
    """The fused program of ``sampler`` with test functions ``phis``, or None where the generic loop must run.

    Parameters
    ----------
    sampler : Sampler
        The sampler (fused: SGLD, ``Minibatch`` x ``Langevin``, on the isotropic Gaussian mean model or on logistic
        regression).
    phis : dict
        The test functions of the time averages (fused: the runner's built-in "theta" and "theta2" only).

    Returns
    -------
    FusedProgram or None
        The program, or None (fused path switched off, or a sampler or test function it does not cover).
    """
    from .runner import BUILTIN_TEST_FUNCTIONS

    if not ENABLED or type(sampler.integrator) is not Langevin or type(sampler.estimator) is not Minibatch:
        return None
    if not set(phis) <= {"theta", "theta2"} or any(phis[k] is not BUILTIN_TEST_FUNCTIONS[k] for k in phis):
        return None
    model, est = sampler.model, sampler.estimator
    N, n = model.n_data, est.n
    if draw_dtype(N) is np.int64 or (not est.replace and without_replacement_route(N, n) != "fused"):
        return None
    half_h, noise = 0.5 * sampler.h, sampler.integrator.noise_scale(sampler.h)
    if type(model) is GaussianMeanModel and model.Sigma is None:
        prior = 0.0 if model.sigma0 is None else -1.0 / model.sigma0**2
        coef = np.array([float(n), model.sigma_x**2, est.scale(model), prior, half_h, noise])
        args = (np.ascontiguousarray(model.data, dtype=np.float64), coef, model.sigma0 is not None)
        serial, parallel = kernels.sgld_steps_gaussian, kernels.sgld_steps_gaussian_parallel
    elif type(model) is LogisticRegressionModel:
        coef = np.array([est.scale(model), -1.0 / model.sigma0**2, half_h, noise])
        args = (model._Zp, model._blocks, coef)  # the padded data and width its own kernels read
        serial, parallel = kernels.sgld_steps_logistic, kernels.sgld_steps_logistic_parallel
    else:
        return None
    return FusedProgram(serial, parallel, N, n, bool(est.replace), draw_dtype(N), args,
                        ("theta" in phis, "theta2" in phis))


class FusedBlock:
    """One block's fused run: :meth:`advance` takes it from step k0 to k1, :meth:`sums` gives the time-average sums.

    Parameters
    ----------
    program : FusedProgram
        The sampler's program.
    theta : numpy.ndarray
        The block's states, shape (m, d), advanced in place.
    rng : numpy.random.Generator
        The block's generator.
    burn_in : int
        The first step whose state enters the time averages.
    n_steps : int
        The number of states averaged (0: none).
    total : int
        The number of steps the block takes.
    threads : int
        Threads of the kernel (more than 1: the kernel parallel over chains).
    """

    def __init__(self, program: FusedProgram, theta: np.ndarray, rng: np.random.Generator, burn_in: int,
                 n_steps: int, total: int, threads: int) -> None:
        m, d = theta.shape
        self.program, self.theta, self.rng = program, theta, rng
        self.ks = np.array([0, 0, total, burn_in, burn_in + n_steps], dtype=np.int64)
        empty = np.empty((0, 0))
        want = n_steps > 0
        self.s1 = np.empty((m, d)) if want and program.stats[0] else empty
        self.s2 = np.empty((m, d)) if want and program.stats[1] else empty
        self.idx = np.empty((program.n, m), dtype=program.dtype)
        self.work = fast_draws.rejection_work(program.n_data, self.idx)
        self.xi = np.empty((m, d))
        self.kernel = program.parallel if threads > 1 else program.serial
        self.pointers = fast_draws.pointers(rng)

    def advance(self, state: SamplerState, k0: int, k1: int) -> SamplerState:
        """States k0..k1-1 into the sums, and steps k0..min(k1, total)-1 taken (theta in place).

        Parameters
        ----------
        state : SamplerState
            The sampler's state (returned as it is: the fused samplers carry no state beyond theta).
        k0, k1 : int
            The first step and one past the last.

        Returns
        -------
        SamplerState
            The state after the steps.
        """
        p, ks = self.program, self.ks
        ks[0], ks[1] = k0, k1
        fn, st = self.pointers
        self.kernel(fn, st, self.rng, p.n_data, p.replace, self.idx, self.work, self.xi, self.theta, ks, self.s1,
                    self.s2, *p.model_args)
        steps = max(0, min(k1, int(ks[2])) - k0)
        return state._replace(step=state.step + steps)

    def sums(self) -> dict[str, np.ndarray]:
        """name -> the sum of phi(theta_k) over the averaged steps (empty when there are none).

        Returns
        -------
        dict of str to numpy.ndarray
            "theta" and "theta2" where asked for, each of shape (m, d).
        """
        out = {}
        if self.s1.size:
            out["theta"] = self.s1
        if self.s2.size:
            out["theta2"] = self.s2
        return out


__all__ = ["ENABLED", "FusedBlock", "FusedProgram", "program_for"]
