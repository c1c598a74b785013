"""SAGA-LD: the SAGA gradient estimator for Langevin dynamics (Dubey et al. 2016; Baker et al. 2019, Sec. 4.4).

Per chain, a table of per-datum gradients G_i = g_i(alpha_i) (alpha_i the state at which datum i was last
visited) and their sum a = sum_i G_i. Each step draws a minibatch S of size n WITHOUT replacement and returns

    g(theta) = grad log p(theta) + a + (N/n) sum_{i in S} [g_i(theta) - G_i],

then sets G_i <- g_i(theta) for i in S and a <- a + sum_{i in S} [g_i(theta) - G_i^old] (docs/papers/baker.md sec. 1.4).
The table is initialised with the per-datum gradients at the chain's first state theta_0 (on the first call of
``apply``) and a with their sum, the full gradient (one O(N) pass); the invariant a = sum_i G_i then holds
exactly. The Langevin step injects its noise (theta' = theta + (h/2) g + sqrt(h) xi): the paper's printed update
omits it (erratum, docs/papers/baker.md sec. 6; ``saga_ld(..., noise=False)`` reproduces the printed map).

Given the table, the noise covariance is K_n Cov_i[g_i(theta) - G_i] N with K_n = N(N - n)/(n(N - 1))
(docs/papers/baker.md sec. 2). Memory: O(M N d) float64 (checked against available memory before allocation); a step
reads and writes only the n table rows of its minibatch per chain (numba kernels of ``simulate._fast.kernels``).
Cost: n per-datum gradients per chain-step plus N per chain once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..arrays import namespace_of
from ..contracts import Model, SupportsGradientTable
from ..memory import available_memory
from ..validation import ParameterError, check_int
from .base import EstimatorBase
from .subsample import index_support, sample_indices

#: Fraction of the available memory one gradient table may take.
MEMORY_FRACTION = 0.5


class SAGAState(NamedTuple):
    """table: (M, N, d) stored per-datum gradients G_i; total: (M, d) their sum (None before the first step).

    Parameters
    ----------
    table : numpy.ndarray or None
        (M, N, d), the stored per-datum gradients G_i.
    total : numpy.ndarray or None
        (M, d), their sum.
    """

    table: np.ndarray | None
    total: np.ndarray | None


def check_table_fits(n_chains: int, n_data: int, dim: int) -> int:
    """Raise ParameterError unless an (n_chains, N, d) float64 table fits in MEMORY_FRACTION of free memory.

    Parameters
    ----------
    n_chains : int
        M, the number of chains.
    n_data : int
        N, the number of data.
    dim : int
        d, the dimension.

    Returns
    -------
    int
        The table's size in bytes.

    Raises
    ------
    ParameterError
        When it does not fit (the message says how many chains would).
    """
    need = 8 * n_chains * n_data * dim
    limit = int(MEMORY_FRACTION * available_memory())
    if need > limit:
        raise ParameterError(
            f"SAGA gradient table of n_chains * N * d = {n_chains} * {n_data} * {dim} float64 needs "
            f"{need / 2**20:.0f} MiB, more than the limit {limit / 2**20:.0f} MiB ({MEMORY_FRACTION:.0%} of available "
            f"memory): reduce n_chains (or block_size) or N so that n_chains * N * d <= {limit // (8 * dim)}")
    return need


@dataclass(frozen=True)
class SAGA(EstimatorBase):
    """SAGA-LD gradient estimator (Dubey et al. 2016) with minibatch size ``n`` drawn without replacement.

    Parameters
    ----------
    n : int
        The minibatch size, 1 <= n <= N.

    References
    ----------
    Dubey et al. (2016), Sec. 3; Baker et al. (2019), Sec. 4.4.
    """

    n: int

    name = "saga"

    def check(self, model: Model) -> None:
        """Check ``1 <= n <= N``.

        Parameters
        ----------
        model : Model
            The model.

        Raises
        ------
        ParameterError
            When n is not in 1..N.
        """
        check_int("n", self.n, 1, model.n_data)

    def init(self, model: Model, n_chains: int, rng: np.random.Generator) -> SAGAState:
        """Check the table fits; it is filled at theta_0 on the first ``estimate`` (no random numbers drawn).

        Parameters
        ----------
        model : Model
            The model.
        n_chains : int
            M, the number of chains.
        rng : numpy.random.Generator
            Unused (the table is filled without random numbers).

        Returns
        -------
        SAGAState
            ``SAGAState(None, None)``.

        Raises
        ------
        ParameterError
            For n outside 1..N or a table that does not fit in memory.
        """
        self.check(model)
        check_table_fits(n_chains, model.n_data, model.dim)
        return SAGAState(None, None)

    def initial_table(self, model: Model, theta0: np.ndarray) -> SAGAState:
        """G_i = g_i(theta_0) for every i and total = sum_i G_i (the full gradient at theta_0).

        Parameters
        ----------
        model : Model
            The model.
        theta0 : numpy.ndarray, shape (M, d)
            The chains' first states.

        Returns
        -------
        SAGAState
            The filled table and its sum.

        Raises
        ------
        ParameterError
            When the table does not fit in memory.
        """
        M, N = theta0.shape[0], model.n_data
        check_table_fits(M, N, model.dim)
        if isinstance(model, SupportsGradientTable):  # filled in place: no (N, M, d) intermediate and transpose
            table, total = np.empty((M, N, model.dim)), np.empty((M, model.dim))
            model.fill_gradient_table(theta0, table, total)
            return SAGAState(table, total)
        xp = namespace_of(theta0)
        g = model.grad_log_lik(theta0, xp.all_indices(N, M))
        table = xp.ascontiguousarray(xp.swapaxes(g, 0, 1))  # (M, N, d)
        return SAGAState(table, table.sum(axis=1))

    def update(self, state: SAGAState, rows: np.ndarray, idx: np.ndarray, g_new: np.ndarray,
               g_old: np.ndarray) -> SAGAState:
        """Table entries of the minibatch <- g_new; total += sum (g_new - g_old) (the invariant total = sum G).

        ``rows`` (1, M) = chain numbers (kept for the interface); only the n rows per chain in ``idx`` are touched
        (numpy: in place).

        Parameters
        ----------
        state : SAGAState
            The table and total.
        rows : numpy.ndarray, shape (1, M)
            The chain numbers (kept for the interface).
        idx : numpy.ndarray, shape (n, M)
            The minibatch indices.
        g_new : numpy.ndarray, shape (n, M, d)
            The minibatch's fresh per-datum gradients.
        g_old : numpy.ndarray, shape (n, M, d)
            The table entries they replace.

        Returns
        -------
        SAGAState
            The updated table and total.

        References
        ----------
        Dubey et al. (2016), Sec. 3; Baker et al. (2019), Sec. 4.4.
        """
        return SAGAState(*namespace_of(g_new).saga_scatter_total(state.table, idx, g_new, g_old, state.total))

    def draw(self, model: Model, n_chains: int, step: int, rng: np.random.Generator) -> np.ndarray:
        """The minibatch indices (n, M), without replacement (the table fill at step 0 draws nothing).

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
        numpy.ndarray, shape (n, M)
            The minibatch indices.
        """
        return sample_indices(rng, model.n_data, self.n, n_chains, False)

    def draw_support(self, model: Model, n_chains: int, step: int) -> list[tuple[np.ndarray, float]]:
        """Every minibatch :meth:`draw` can return, (n, M) the same for all chains, with its probability.

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
        return index_support(model.n_data, self.n, False, n_chains)

    def apply(self, model: Model, theta: np.ndarray, state: SAGAState, idx: np.ndarray):
        """g = grad log p(theta) + a + (N/n) sum_{i in S} [g_i(theta) - G_i], then the table update (the table is
        filled at theta on the first call).

        Parameters
        ----------
        model : Model
            The model.
        theta : numpy.ndarray, shape (M, d)
            The chains' points.
        state : SAGAState
            The table (unfilled before the first call).
        idx : numpy.ndarray, shape (n, M)
            This step's minibatch indices, from :meth:`draw`.

        Returns
        -------
        g : numpy.ndarray, shape (M, d)
            The estimate.
        state : SAGAState
            The updated table.

        References
        ----------
        Dubey et al. (2016), Sec. 3; Baker et al. (2019), Sec. 4.4.
        """
        if state is None or state.table is None:
            state = self.initial_table(model, theta)
        xp = namespace_of(theta)
        M, N = theta.shape[0], model.n_data
        idx = xp.indices(idx)  # (n, M)
        rows = np.arange(M)[None, :]
        g_new = xp.ascontiguousarray(model.grad_log_lik(theta, idx))  # (n, M, d)
        g_old, g = xp.saga_gather_diff(state.table, idx, g_new)  # g_old = table[m, idx[j, m]], g = sum(new - old)
        g *= N / self.n
        g += state.total
        g += model.grad_log_prior(theta)
        return g, self.update(state, rows, idx, g_new, g_old)

    def noise_cov(self, model: Model, theta: np.ndarray | None = None) -> np.ndarray:
        raise ParameterError("SAGA: the gradient noise depends on the table state (use "
                             "theory.noise.minibatch.saga_noise_cov with the table); mSGLD is not defined for it")

    def grads_per_step(self, model: Model) -> float:
        """n per chain-step (plus N once per chain to fill the table).

        Parameters
        ----------
        model : Model
            The model.

        Returns
        -------
        float
            n.
        """
        return float(self.n)


__all__ = ["SAGA", "SAGAState", "check_table_fits"]
