"""The discretised chain on one grid: its transition matrix T (acting on masses), stationary masses, the powers of
its transient part and the closed sums behind finite-k expectations and time averages.

T conserves mass (1^T T = 1^T), so with the stationary masses m (T m = m, 1^T m = 1) and Pi = m 1^T,
T^t = Pi + R^t for t >= 1 with R = T - Pi, Pi R = R Pi = 0 and (I - R)^-1 = (I - T + m 1^T)^-1 (one LU). A test
function f is used centred, f~ = f - f^T m, so f~^T T^t = f~^T R^t. Powers R^j v are iterated until they fall below
1e-17 of the starting vector (the sequence length J is where the transient has died out); beyond J they are 0.
Every sum over a window of length L then costs O(J) matrix-vector products and a few solves, whatever L.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla

from simulate.validation import ParameterError

from .refusal import GridRefusal

#: Relative size below which R^j v is taken as 0.
DECAY = 1e-17
#: Longest power sequence (a chain mixing slower than this on the grid is refused).
J_MAX = 200_000


class Chain:
    """The chain on one grid: its transition matrix and the start column (module docstring).

    Parameters
    ----------
    T : numpy.ndarray
        The transition matrix (n, n), acting on masses (1^T T = 1^T).
    start : numpy.ndarray or None
        The masses after the first step from the start law, shape (n,) (None: no start on this grid).
    """

    def __init__(self, T: np.ndarray, start: np.ndarray | None) -> None:
        self.T = T
        n = T.shape[0]
        self.n = n
        u = np.full(n, 1.0 / n)
        # B = I - T + u 1^T is invertible; B m = u gives the stationary masses (built in place: one n x n array)
        B = np.negative(T)
        B += u[:, None]
        B.flat[:: n + 1] += 1.0
        self._lu = sla.lu_factor(B, overwrite_a=True, check_finite=False)
        m = sla.lu_solve(self._lu, u)
        self.m = m / m.sum()
        self._u = u
        # Sherman-Morrison: (I - R) = B + (m - u) 1^T
        self._Bm = sla.lu_solve(self._lu, self.m)
        self._Bm_t = sla.lu_solve(self._lu, np.ones(n), trans=1)
        self.start = start
        self.delta1 = None if start is None else start - self.m
        self._u_seq: list[np.ndarray] | None = None
        self._u_done = False

    # ------------------------------------------------------------------ operators
    def R(self, v: np.ndarray) -> np.ndarray:
        """R v = T v - m (1^T v).

        Parameters
        ----------
        v : numpy.ndarray
            A vector of masses (or of values), shape (n,).

        Returns
        -------
        numpy.ndarray
            R v.
        """
        return self.T @ v - self.m * v.sum()

    def Rt(self, v: np.ndarray) -> np.ndarray:
        """R^T v = T^T v - 1 (m^T v).

        Parameters
        ----------
        v : numpy.ndarray
            A vector of masses (or of values), shape (n,).

        Returns
        -------
        numpy.ndarray
            R^T v.
        """
        return self.T.T @ v - (self.m @ v)

    def resolvent(self, v: np.ndarray) -> np.ndarray:
        """(I - R)^-1 v (one LU of I - T + u 1^T and a Sherman-Morrison correction).

        Parameters
        ----------
        v : numpy.ndarray
            A vector of masses (or of values), shape (n,).

        Returns
        -------
        numpy.ndarray
            (I - R)^-1 v.
        """
        y = sla.lu_solve(self._lu, v)
        # with w = m - u: (B + w 1^T)^-1 v = y - B^-1 w (1^T y) / (1 + 1^T B^-1 w), B^-1 w = B^-1 m - m (B m = u)
        Bw = self._Bm - self.m
        return y - Bw * (y.sum() / (1.0 + Bw.sum()))

    def resolvent_t(self, v: np.ndarray) -> np.ndarray:
        """(I - R^T)^-1 v.

        Parameters
        ----------
        v : numpy.ndarray
            A vector of masses (or of values), shape (n,).

        Returns
        -------
        numpy.ndarray
            (I - R^T)^-1 v.
        """
        y = sla.lu_solve(self._lu, v, trans=1)
        w = self.m - self._u
        Btw = self._Bm_t  # B^-T 1
        # (B^T + 1 w^T)^-1 v = y - B^-T 1 (w^T y) / (1 + w^T B^-T 1)
        return y - Btw * ((w @ y) / (1.0 + w @ Btw))

    # ------------------------------------------------------------------ powers
    def sequence(self, v: np.ndarray, left: bool = False, upto: int | None = None) -> list[np.ndarray]:
        """[v, R v, R^2 v, ...] (or with R^T) until the terms fall below DECAY of ``|v|_1`` (or up to R^upto v).

        Parameters
        ----------
        v : numpy.ndarray
            A vector of masses (or of values), shape (n,).
        left : bool
            Apply R^T instead of R.
        upto : int, optional
            The highest power the caller reads (default: until the terms decay); the list stops there.

        Returns
        -------
        list of numpy.ndarray
            The powers applied to v, up to the first below DECAY or to R^upto v.

        Raises
        ------
        GridRefusal
            When the sequence is longer than :data:`J_MAX` (the chain mixes too slowly for the grid route).
        """
        out = [v]
        self._extend(out, left, max(np.abs(v).sum(), 1e-300), upto)
        return out

    def _extend(self, out: list[np.ndarray], left: bool, scale: float, upto: int | None) -> bool:
        """Append powers to ``out`` until they decay (returns True) or ``out`` holds R^upto v (returns False)."""
        apply = self.Rt if left else self.R
        while np.abs(out[-1]).sum() > DECAY * scale:
            if upto is not None and len(out) > upto:
                return False
            if len(out) >= J_MAX:
                raise GridRefusal(f"the chain on the grid has not forgotten its start after {J_MAX} steps (it mixes "
                                  "too slowly for the grid route at this h): use a larger h or fewer steps")
            out.append(apply(out[-1]))
        return True

    def power(self, seq: list[np.ndarray], j: int) -> np.ndarray:
        """R^j v from ``sequence(v)`` (0 beyond its end).

        Parameters
        ----------
        seq : list of numpy.ndarray
            ``sequence(v)``.
        j : int
            The power, j >= 0.

        Returns
        -------
        numpy.ndarray
            R^j v.
        """
        return seq[j] if j < len(seq) else np.zeros_like(seq[0])

    def transient(self, upto: int | None = None) -> list[np.ndarray]:
        """R^i delta_1, delta_1 = start - m, for i up to ``upto`` at least (default: until they decay); cached and
        extended on demand, so that a result at step k costs k matrix-vector products, not the mixing time.

        Parameters
        ----------
        upto : int, optional
            The highest power the caller reads.

        Returns
        -------
        list of numpy.ndarray
            The powers computed so far (0 beyond the end when the list ends by decay).

        Raises
        ------
        ParameterError
            When the chain has no start.
        """
        if self.delta1 is None:
            raise ParameterError("this law has no start (theta0 outside the grid's region)")
        if self._u_seq is None:
            self._u_seq = [self.delta1]
        if not self._u_done and (upto is None or len(self._u_seq) <= upto):
            self._u_done = self._extend(self._u_seq, False, max(np.abs(self.delta1).sum(), 1e-300), upto)
        return self._u_seq

    # ------------------------------------------------------------------ results
    def stationary(self, f: np.ndarray) -> np.ndarray:
        """sum_b f_b m_b, the stationary expectation on the grid.

        Parameters
        ----------
        f : numpy.ndarray
            Values at the nodes, shape (n,) or (n, k).

        Returns
        -------
        numpy.ndarray
            The expectation, shape () or (k,).
        """
        return self.m @ f

    def at_step(self, f: np.ndarray, k: int) -> np.ndarray:
        """E f(x_k) for k >= 1: f^T (m + R^(k-1) delta_1), delta_1 = start - m.

        Parameters
        ----------
        f : numpy.ndarray
            Values at the nodes, shape (n,) or (n, k).
        k : int
            The step, k >= 1.

        Returns
        -------
        numpy.ndarray
            The expectation, shape () or (k,).

        Raises
        ------
        ParameterError
            When the chain has no start.
        """
        return f.T @ (self.m + self.power(self.transient(k - 1), k - 1))

    def window_sum(self, i1: int, i2: int) -> np.ndarray:
        """sum_{i=i1}^{i2} R^i delta_1 = (I - R)^-1 (R^i1 - R^(i2+1)) delta_1 (0 for an empty range).

        Parameters
        ----------
        i1, i2 : int
            The first and last power.

        Returns
        -------
        numpy.ndarray
            The sum, shape (n,).
        """
        if i2 < i1:
            return np.zeros(self.n)
        u = self.transient(i2 + 1)
        return self.resolvent(self.power(u, i1) - self.power(u, i2 + 1))

    def time_average(self, f: np.ndarray, f0: float, n_steps: int, burn_in: int) -> tuple[float, float]:
        """(mean, variance) of (1/L) sum_{k=b}^{b+L-1} f(x_k) by closed sums (module docstring).

        x_0 is the start point (value f0) and x_k, k >= 1, lives on the grid; the derivation is in docs/grid_law.md.

        Parameters
        ----------
        f : numpy.ndarray
            Values at the nodes, shape (n,).
        f0 : float
            f at the start point.
        n_steps : int
            The window length L >= 1.
        burn_in : int
            The first step b >= 0.

        Returns
        -------
        tuple of float
            The time average's mean and variance.

        References
        ----------
        Vollmer, Zygalakis & Teh (2016), eq. (7) (the time average); the closed sums are new.
        """
        L, b = n_steps, burn_in
        mu = float(self.m @ f)
        ft, ft0 = f - mu, f0 - mu
        has0 = b == 0
        K1, K2 = max(b, 1), b + L - 1
        Lg = K2 - K1 + 1  # grid states in the window
        D = self.window_sum(K1 - 1, K2 - 1)
        mean_c = (has0 * ft0 + ft @ D) / L
        second = has0 * ft0**2 + Lg * float((ft**2) @ self.m) + float((ft**2) @ D)
        if has0:
            second += 2.0 * ft0 * float(ft @ D)
        second += 2.0 * self._stationary_pairs(ft, Lg) + 2.0 * self._transient_pairs(ft, K1, K2)
        var = second / L**2 - mean_c**2
        return mu + mean_c, var

    def _stationary_pairs(self, ft: np.ndarray, Lg: int) -> float:
        """sum_{t=1}^{Lg-1} (Lg - t) f~^T R^t (f~ m) = f~^T R [Lg z1 - z2 + R^Lg z2], z1 = (I-R)^-1 y,
        z2 = (I-R)^-1 z1."""
        if Lg < 2:
            return 0.0
        y = ft * self.m
        z1 = self.resolvent(y)
        z2 = self.resolvent(z1)
        tail = self.power(self.sequence(z2, upto=Lg), Lg) if Lg < J_MAX else 0.0 * z2
        return float(ft @ self.R(Lg * z1 - z2 + tail))

    def _transient_pairs(self, ft: np.ndarray, K1: int, K2: int) -> float:
        """sum_{K1<=j<l<=K2} f~^T R^(l-j) (f~ delta_j), delta_j = R^(j-1) delta_1 (the start's part)."""
        if K2 <= K1:
            return 0.0
        first = float(ft @ self.R(self.resolvent(ft * self.window_sum(K1 - 1, K2 - 2))))
        # minus sum_j a_{K2-j+1}^T (f~ R^(j-1) delta_1), a_s = (R^T)^s (I - R^T)^-1 f~, both sides decaying
        u = self.transient(K2 - 2)
        a = self.sequence(self.resolvent_t(ft), left=True, upto=K2 - K1 + 1)
        lo, hi = max(K1, K2 + 2 - len(a)), min(K2 - 1, len(u))
        sandwich = sum(float(a[K2 - j + 1] @ (ft * u[j - 1])) for j in range(lo, hi + 1))
        return first - sandwich


__all__ = ["DECAY", "J_MAX", "Chain"]
