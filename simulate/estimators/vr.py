"""Variance-reduced gradient estimators: vrSG-MCMC (Chen, Wang, Zhang, Su, Carin 2019, Algorithm 1) and SVRG-LD
(Dubey et al. 2016), vectorized over chains.

Algorithm 1 of Chen et al. ("practical variance-reduction SG-MCMC"), with minibatch sizes n1 > n2 and epoch
length m. At iteration l (all chains step in lockstep, so l is shared):

    if l mod m == 0:   draw an n1-minibatch pi;  theta_tilde = theta_l;
                       g_tilde = (N/n1) sum_{i in pi} grad log p(d_i | theta_tilde)     (anchor, NOT full)
    draw an n2-minibatch pi2;
    g_{l+1} = g_tilde + grad log p(theta_l) + (N/n2) sum_{i in pi2} (grad_i(theta_l) - grad_i(theta_tilde)),

with grad_i(theta) = grad log p(d_i | theta), and theta_{l+1} = NextS(theta_l, g_{l+1}, h): here the Langevin
(SGLD) step of the workbench convention theta' = theta + (h/2) g + sqrt(h) xi (Chen et al. write
theta + eps g + sqrt(2 eps) xi, so h = 2 eps). At fixed (theta_l, theta_tilde), averaging over both (independent)
minibatches, g is unbiased for grad log posterior(theta_l); within an epoch the anchor batch is shared, so the
gradient errors of successive steps are correlated. SVRG-LD (Dubey et al. 2016) is the special case n1 = N: the
anchor gradient is the full gradient at theta_tilde.

Minibatches are drawn without replacement by default (Chen et al.'s analysis, z_i with sum z_i = n, needs it;
docs/papers/chen.md sec. 2). Random draws per estimate: the anchor indices (only at a refresh, and never for
n1 = N without replacement), then the correction indices.

Cost (docs/papers/chen.md sec. 4): Algorithm 1 evaluates n1 per-datum gradients per epoch plus 2 n2 per
iteration, so ``grads_per_step = 2 n2 + n1/m``; the paper's Remark 8/4 counts T = n1/m + n2
(``paper_grads_per_step``).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..arrays import draw_when, namespace_of
from ..contracts import Model
from ..validation import ParameterError
from .base import EstimatorBase
from .control_variates import grad_log_lik_diff_sum
from .subsample import index_support, sample_indices


class VRDraws(NamedTuple):
    """One step's indices: ``anchor`` (n1, M) at an epoch start, ``()`` there when n1 = N without replacement (the
    exact full sum), None inside an epoch; ``minibatch`` (n2, M).

    Parameters
    ----------
    anchor : numpy.ndarray, tuple or None
        The anchor indices (n1, M) at an epoch start, ``()`` for the exact full sum, None inside an epoch.
    minibatch : numpy.ndarray, shape (n2, M)
        The correction minibatch.
    """

    anchor: np.ndarray | tuple | None
    minibatch: np.ndarray


class VRState(NamedTuple):
    """Per-block state of a variance-reduced estimator (Chen et al. 2019, Algorithm 1).

    theta_tilde: (M, d) anchor (snapshot) of each chain; g_tilde: (M, d) anchor gradient
    (N/n1) sum_{i in pi} grad log p(d_i | theta_tilde); step: iteration counter l shared by all chains.

    Parameters
    ----------
    theta_tilde : numpy.ndarray, shape (M, d)
        The anchor (snapshot) of each chain.
    g_tilde : numpy.ndarray, shape (M, d)
        The anchor gradient.
    step : int
        The step counter l.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1.
    """

    theta_tilde: np.ndarray
    g_tilde: np.ndarray
    step: int


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


@dataclass(frozen=True)
class VRMinibatch(EstimatorBase):
    """vrSG-MCMC gradient estimator, Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1.

    g_{l+1} = g_tilde + grad log p(theta_l) + (N/n2) sum_{i in pi2} [grad_i(theta_l) - grad_i(theta_tilde)],
    grad_i(theta) = grad log p(d_i | theta), g_tilde = (N/n1) sum_{i in pi} grad_i(theta_tilde), with
    (theta_tilde, g_tilde) refreshed at every l with l mod m == 0 (theta_tilde = theta_l).
    ``n1``: anchor minibatch size; ``n2``: correction minibatch size (1 <= n2 < n1 <= N); ``m``: epoch length
    (m >= 1); ``replace``: draw both minibatches with replacement (default: without, as the paper's analysis
    requires).

    Parameters
    ----------
    n1 : int
        The anchor minibatch size, n2 < n1 <= N.
    n2 : int
        The correction minibatch size, >= 1.
    m : int
        The epoch length, >= 1.
    replace : bool, default False
        Draw the minibatches with replacement.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1; the cost count: Remark 8 (which undercounts by n2).
    """

    n1: int
    n2: int
    m: int
    replace: bool = False

    name = "vr_minibatch"

    # ------------------------------------------------------------------ parameters
    def anchor_size(self, model: Model) -> int:
        """Size n1 of the anchor minibatch (N for SVRG-LD).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        int
            n1.
        """
        return int(self.n1)

    def anchor_is_full(self, model: Model) -> bool:
        """True when the anchor gradient is the exact full-data sum (n1 = N without replacement; SVRG-LD always).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
            Whether the anchor gradient is the exact full sum.
        """
        return self.anchor_size(model) == model.n_data and not self.replace

    def check(self, model: Model) -> None:
        """Validate 1 <= n2 < n1 <= N (Chen et al. Algorithm 1 input: n1 > n2), m >= 1 and replace in {True, False}.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When the sizes break 1 <= n2 < n1 <= N, m < 1 or replace is not a bool.
        """
        N = model.n_data
        if not _is_int(self.n1) or not 2 <= self.n1 <= N:
            raise ParameterError(f"n1 must be an integer with 2 <= n1 <= N = {N} (anchor minibatch size; Chen et al. "
                                 f"Algorithm 1 needs n1 > n2 >= 1), got {self.n1!r}")
        self._check_n2_m(model)

    def _check_n2_m(self, model: Model) -> None:
        n1 = self.anchor_size(model)
        if not _is_int(self.n2) or not 1 <= self.n2 < n1:
            raise ParameterError(f"n2 must be an integer with 1 <= n2 < n1 = {n1} (correction minibatch size; Chen et "
                                 f"al. Algorithm 1 needs n1 > n2), got {self.n2!r}")
        if not _is_int(self.m) or self.m < 1:
            raise ParameterError(f"m must be an integer with m >= 1 (epoch length: anchor refreshed every m steps), "
                                 f"got {self.m!r}")
        if self.replace is not True and self.replace is not False:
            raise ParameterError(f"replace must be True or False, got {self.replace!r}")

    # ------------------------------------------------------------------ estimator interface
    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> VRState:
        """Empty anchor and step counter l = 0 (the first ``estimate`` refreshes the anchor); draws nothing.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        rng : numpy.random.Generator
            Unused (nothing is drawn).

        Returns
        -------
        VRState
            An empty anchor and l = 0.
        """
        self.check(model)
        shape = (n_chains, model.dim)
        return VRState(np.zeros(shape), np.zeros(shape), 0)

    def steps_taken(self, state: VRState) -> int:
        """The step counter l of the state (the anchor is refreshed when l mod m = 0).

        Parameters
        ----------
        state : VRState
            The estimator's state.

        Returns
        -------
        int
            l.
        """
        return int(state.step)

    def anchor_gradient(self, model: Model, theta_tilde: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """g_tilde = (N/n1) sum_{i in pi} grad log p(d_i | theta_tilde), pi a fresh n1-minibatch per chain, (M, d).

        Chen et al. (2019) Algorithm 1, line 4. For n1 = N without replacement, pi is the whole data set: the exact
        sum is computed and no random number is drawn (SVRG-LD, Dubey et al. 2016).

        Parameters
        ----------
        model : Model
            The model.
        theta_tilde : numpy.ndarray, shape (M, d)
            The anchors.
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        numpy.ndarray, shape (M, d)
            g_tilde.

        References
        ----------
        Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1.
        """
        N = model.n_data
        n1 = self.anchor_size(model)
        if self.anchor_is_full(model):
            return model.grad_log_lik_full(theta_tilde)
        return self.anchor_gradient_at(model, theta_tilde, sample_indices(rng, N, n1, theta_tilde.shape[0],
                                                                           self.replace))

    def anchor_gradient_at(self, model: Model, theta_tilde: np.ndarray, idx) -> np.ndarray:
        """g_tilde on given anchor indices idx (n1, M); ``()`` means the whole data set (n1 = N, exact sum).

        Parameters
        ----------
        model : Model
            The model.
        theta_tilde : numpy.ndarray, shape (M, d)
            The anchors.
        idx : numpy.ndarray or tuple
            The anchor indices (n1, M), or ``()`` for the whole data set.

        Returns
        -------
        numpy.ndarray, shape (M, d)
            g_tilde.

        References
        ----------
        Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1.
        """
        if isinstance(idx, tuple):
            return model.grad_log_lik_full(theta_tilde)
        g = model.grad_log_lik_sum(theta_tilde, idx)
        g *= model.n_data / self.anchor_size(model)
        return g

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> VRDraws:
        """Step ``step``'s indices: at an epoch start (step mod m = 0) the anchor's n1-minibatch (None when n1 = N
        without replacement: the full sum, no draw), then the n2-minibatch.

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).
        rng : numpy.random.Generator
            The stream (advanced).

        Returns
        -------
        VRDraws
            The anchor's and the correction's indices.
        """
        N, n1 = model.n_data, self.anchor_size(model)
        anchor = draw_when(rng, step % self.m == 0, lambda: () if self.anchor_is_full(model)
                           else sample_indices(rng, N, n1, n_chains, self.replace))
        return VRDraws(anchor, sample_indices(rng, model.n_data, self.n2, n_chains, self.replace))

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[VRDraws, float]]:
        """Every value :meth:`draw` can return at step ``step`` (the same for all M chains), with its probability:
        the n2-minibatches, and at an epoch start each anchor minibatch with each of them (independent draws).

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        step : int
            The step (0 = the first estimate after init).

        Returns
        -------
        list of (object, float)
            (draw, probability) pairs, the same for all chains; the probabilities sum to 1.
        """
        N = model.n_data
        mb = index_support(N, self.n2, self.replace, n_chains)
        if step % self.m != 0:
            return [(VRDraws(None, t), p) for t, p in mb]
        anchors = [((), 1.0)] if self.anchor_is_full(model) else \
            index_support(N, self.anchor_size(model), self.replace, n_chains)
        return [(VRDraws(a, t), pa * pt) for a, pa in anchors for t, pt in mb]

    def apply(self, model: Model, theta: np.ndarray, state: VRState, draws: VRDraws) -> tuple[np.ndarray, VRState]:
        """One gradient estimate g_{l+1} of Chen et al. (2019) Algorithm 1 from this step's draws: at l mod m = 0,
        theta_tilde = theta_l (a copy) and g_tilde from the anchor indices; then
        g = g_tilde + grad log p(theta_l) + (N/n2) sum_{i in pi2} (grad_i(theta_l) - grad_i(theta_tilde)).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : VRState
            The estimator's state.
        draws : VRDraws
            This step's draws, from :meth:`draw`.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The estimate g_{l+1}.
        state : VRState
            The anchor (refreshed at an epoch start) and l + 1.

        References
        ----------
        Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1.
        """
        theta_tilde, g_tilde, step = state
        if isinstance(step, int) and (draws.anchor is None) != (step % self.m != 0):
            raise ParameterError("draws for the wrong step: anchor draws must come exactly at the steps l with "
                                 f"l mod m = 0 (m = {self.m}, l = {step})")
        xp = namespace_of(theta)

        def refresh():
            anchor = xp.copy(theta)
            return anchor, self.anchor_gradient_at(model, anchor, draws.anchor)

        theta_tilde, g_tilde = xp.cond(step % self.m == 0, refresh, lambda: (theta_tilde, g_tilde))
        N = model.n_data
        idx = draws.minibatch
        corr = grad_log_lik_diff_sum(model, theta, theta_tilde, idx)  # one pass over pi2 for both points
        corr *= N / self.n2
        g = g_tilde + model.grad_log_prior(theta)
        g += corr
        return g, VRState(theta_tilde, g_tilde, step + 1)

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        """Not defined: the vr gradient noise depends on theta_tilde and is correlated within an epoch (no mSGLD).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, optional
            Unused.

        Raises
        ------
        ParameterError
            Always.
        """
        raise ParameterError(
            f"{type(self).__name__}: the gradient-noise covariance of a variance-reduced estimator depends on the "
            "anchor theta_tilde and is correlated across the m steps of an epoch, so mSGLD (ModifiedLangevin) is not "
            "defined for it; use the Langevin integrator (vrsgld / svrgld)")

    def grads_per_step(self, model: Model) -> float:
        """Honest per-datum gradient evaluations per chain-step: 2 n2 + n1/m (Algorithm 1 as written).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
            2 n2 + n1/m.

        References
        ----------
        Chen, Wang, Zhang, Su & Carin (2019), Algorithm 1 (counted as written; new).
        """
        return 2.0 * self.n2 + self.anchor_size(model) / self.m

    def paper_grads_per_step(self, model: Model) -> float:
        """The paper's per-iteration cost T = n1/m + n2 (Chen et al. Remark 8/4; undercounts by n2,
        docs/papers/chen.md sec. 4).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
            n1/m + n2.

        References
        ----------
        Chen et al. (2019), Remark 8.
        """
        return float(self.n2) + self.anchor_size(model) / self.m


@dataclass(frozen=True, init=False)
class SVRG(VRMinibatch):
    """SVRG-LD gradient estimator (Dubey et al. 2016): Algorithm 1 of Chen et al. (2019) with n1 = N.

    g = grad log p(theta) + sum_{i=1}^N grad log p(d_i|theta_tilde)
    + (N/n2) sum_{i in pi2} (grad log p(d_i|theta) - grad log p(d_i|theta_tilde)),
    the anchor theta_tilde refreshed every m steps. ``n1`` is stored as None (the full data set; see
    :meth:`anchor_size`); the correction minibatch is drawn without replacement unless ``replace`` (as SGMCMCJax
    draws it); the anchor gradient is always the exact full sum.

    Parameters
    ----------
    n2 : int
        The minibatch size, 1 <= n2 < N.
    m : int
        The epoch length, >= 1.
    replace : bool, default False
        Draw the correction minibatch with replacement.

    References
    ----------
    Dubey et al. (2016), Sec. 3 (SVRG-LD); Chen et al. (2019), Algorithm 1 with n1 = N.
    """

    name = "svrg"

    def __init__(self, n2: int, m: int, replace: bool = False) -> None:
        object.__setattr__(self, "n1", None)
        object.__setattr__(self, "n2", n2)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "replace", replace)

    def anchor_is_full(self, model: Model) -> bool:
        """Always: SVRG-LD's anchor gradient is the full-data sum, whatever ``replace`` says of the minibatch.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        bool
            True.
        """
        return True

    def anchor_size(self, model: Model) -> int:
        """n1 = N: the anchor gradient is the full gradient.

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        int
            N.
        """
        return int(model.n_data)

    def check(self, model: Model) -> None:
        """Validate 1 <= n2 < N and m >= 1.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When n2 is not in 1..N-1 or m < 1.
        """
        if model.n_data < 2:
            raise ParameterError(f"SVRG-LD needs N >= 2 data (1 <= n2 < N), got N = {model.n_data}")
        self._check_n2_m(model)


__all__ = ["SVRG", "VRDraws", "VRMinibatch", "VRState"]
