"""One random affine stage of a step, in homogeneous coordinates x^ = (x, 1) of the chain's whole state x in R^D.

A stage maps x^ to M~ x^ with the random matrix

    M~ = Mbar + sum_i (c_i - E c_i) U_i + Xi,        Xi = (Gaussian noise) e_c^T,

c the minibatch counts of one scheme (``theory.linear_gaussian.noise``), U_i the per-datum directions and Xi the
injected Gaussian noise, gated by the homogeneous coordinate c (so that x' = Mbar x + b + noise). Counts and noise
are independent of x and of other stages, so the moments of one stage are

    E[x^' | x^] = Mbar x^,
    E[x^' x^'^T | x^] = Mbar X Mbar^T + sum_g kappa_g sum_{i in g} V_i X V_i^T + X_cc Qn,     X = x^ x^^T,

with V_i = U_i - Ubar_g (the count covariance kappa_g (delta_ij - 1/N_g), ``Group``), Qn the covariance
of the injected noise. Steps are products of independent stages, so their moment operators compose.
The fluctuation is stored either factored, U_i = L w_g (G_i - Gbar_g) R (the gradient of datum i evaluated at R x^,
loaded into the state by L: O(N d^2) per application to one matrix for rank-one data, and a batch of symmetric
matrices through the pair matrix of :meth:`.noise.NoiseOperator.pair_matrix`), or dense (N, n, n) (SAGA's table).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .affine import eye, number, zeros
from .noise import Group, NoiseOperator


@dataclass(frozen=True)
class Factored:
    """A factored minibatch fluctuation: U_i = L w_g (G_i - Gbar_g) R, the gradient of datum i at R x^ loaded by L.

    Parameters
    ----------
    L : ndarray
        (n, d): how the gradient enters the state.
    R : ndarray
        (d + 1, n): the point the per-datum gradients are evaluated at, as a map of x^.
    op : NoiseOperator
        The exact second moments of the scheme's minibatch counts.
    """

    L: np.ndarray
    R: np.ndarray
    op: NoiseOperator

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The fluctuation's term of the second moment, sum_g kappa_g sum_i V_i X V_i^T, in O(N d^2) for rank-one data.

        Parameters
        ----------
        X : ndarray
            (..., n, n): E[x^ x^^T], batched over leading axes.

        Returns
        -------
        ndarray
            (..., n, n).
        """
        Y = self.R @ X @ self.R.T
        return self.L @ self.op.apply(Y) @ self.L.T

    def dense(self) -> list[tuple[Group, np.ndarray]]:
        """The directions written out: per group, the centred V_i = L w_g (G_i - Gbar_g) R.

        Returns
        -------
        list of (Group, ndarray)
            Per group of data, the centred directions V_i, (N_g, n, n).
        """
        return [(g, np.einsum("ab,nbc,cd->nad", self.L, V, self.R)) for g, V in self.op.centred()]

    def left(self, T: np.ndarray) -> Factored:
        """The fluctuation of T M~ (T applied after the stage): L replaced by T L.

        Parameters
        ----------
        T : ndarray
            (n, n): a deterministic map of the state.

        Returns
        -------
        Factored
            The fluctuation of T M~.
        """
        return replace(self, L=T @ self.L)

    def right(self, T: np.ndarray) -> Factored:
        """The fluctuation of M~ T (T applied before the stage): R replaced by R T.

        Parameters
        ----------
        T : ndarray
            (n, n): a deterministic map of the state.

        Returns
        -------
        Factored
            The fluctuation of M~ T.
        """
        return replace(self, R=self.R @ T)


@dataclass(frozen=True)
class Dense:
    """A dense minibatch fluctuation: per group of data the centred directions V_i written out (SAGA's table).

    Parameters
    ----------
    parts : tuple of (Group, ndarray)
        Per group, (group, V (N_g, n, n)), V centred within the group.
    """

    parts: tuple[tuple[Group, np.ndarray], ...]

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The fluctuation's term of the second moment, sum_g kappa_g sum_i V_i X V_i^T.

        Parameters
        ----------
        X : ndarray
            (..., n, n): E[x^ x^^T], batched over leading axes.

        Returns
        -------
        ndarray
            (..., n, n).
        """
        out = None
        for g, V in self.parts:
            if X.ndim == 2 and V.dtype != object:  # one matrix product: [V_1 X, ..., V_N X] [V_1, ..., V_N]^T
                N, n = V.shape[0], V.shape[1]
                VX = (V @ X).transpose(1, 0, 2).reshape(n, N * n)
                t = VX @ V.transpose(1, 0, 2).reshape(n, N * n).T
            else:
                t = np.einsum("nij,...jk,nlk->...il", V, X, V)
            t = t * number(g.kappa, V)
            out = t if out is None else out + t
        return out

    def dense(self) -> list[tuple[Group, np.ndarray]]:
        """The directions, per group.

        Returns
        -------
        list of (Group, ndarray)
            Per group of data, the centred directions V_i, (N_g, n, n).
        """
        return list(self.parts)

    def left(self, T: np.ndarray) -> Dense:
        """The fluctuation of T M~ (T applied after the stage): each V_i replaced by T V_i.

        Parameters
        ----------
        T : ndarray
            (n, n): a deterministic map of the state.

        Returns
        -------
        Dense
            The fluctuation of T M~.
        """
        return Dense(tuple((g, np.einsum("ab,nbc->nac", T, V)) for g, V in self.parts))

    def right(self, T: np.ndarray) -> Dense:
        """The fluctuation of M~ T (T applied before the stage): each V_i replaced by V_i T.

        Parameters
        ----------
        T : ndarray
            (n, n): a deterministic map of the state.

        Returns
        -------
        Dense
            The fluctuation of M~ T.
        """
        return Dense(tuple((g, V @ T) for g, V in self.parts))


@dataclass(frozen=True)
class Stage:
    """One random affine stage x^ -> M~ x^ (module docstring): E[x^' | x^] = Mbar x^, injected Gaussian noise of
    covariance Qn, and the minibatch fluctuation.

    Parameters
    ----------
    mean : ndarray
        Mbar, (n, n); its last row is e_c^T (the homogeneous coordinate stays 1).
    noise : ndarray
        Qn, (n, n), zero last row and column.
    fluct : Factored, Dense or None
        The fluctuation sum_i (c_i - E c_i) U_i, or None.
    """

    mean: np.ndarray
    noise: np.ndarray
    fluct: Factored | Dense | None = None

    @property
    def n(self) -> int:
        """n = D + 1, the size of the homogeneous state."""
        return int(self.mean.shape[0])

    def first(self, m: np.ndarray) -> np.ndarray:
        """The first moment after the stage, E[x^'] = Mbar m^.

        Parameters
        ----------
        m : ndarray
            (n,) or (n, k): E[x^].

        Returns
        -------
        ndarray
            Of the shape of ``m``.
        """
        return self.mean @ m

    def second(self, X: np.ndarray) -> np.ndarray:
        """The second moment after the stage, E[x^' x^'^T], from X = E[x^ x^^T] (module docstring).

        Parameters
        ----------
        X : ndarray
            (..., n, n): E[x^ x^^T], batched over leading axes.

        Returns
        -------
        ndarray
            (..., n, n).
        """
        out = self.mean @ X @ self.mean.T + X[..., -1, -1][..., None, None] * self.noise
        if self.fluct is not None:
            out = out + self.fluct.apply(X)
        return out

    def before(self, T: np.ndarray) -> Stage:
        """This stage applied after the deterministic map T: x^ -> M~ T x^.

        Parameters
        ----------
        T : ndarray
            (n, n), last row e_c^T.

        Returns
        -------
        Stage
        """
        return Stage(self.mean @ T, self.noise, None if self.fluct is None else self.fluct.right(T))

    def after(self, T: np.ndarray) -> Stage:
        """The deterministic map T applied after this stage: x^ -> T M~ x^.

        Parameters
        ----------
        T : ndarray
            (n, n), last row e_c^T.

        Returns
        -------
        Stage
        """
        return Stage(T @ self.mean, T @ self.noise @ T.T, None if self.fluct is None else self.fluct.left(T))


__all__ = ["Dense", "Factored", "Stage", "eye", "zeros"]
