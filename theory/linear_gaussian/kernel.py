"""The chain's state layout and its (periodic) sequence of steps, each a product of stages (:mod:`.stages`).

State x = (theta, integrator blocks (SGHMC momentum), estimator blocks (anchors, frozen noise, SAGA table)), written
in homogeneous coordinates x^ = (x, 1). Step k uses the stages of phase k mod P; P is the least common multiple of
the estimator's period (vrSG-MCMC / SVRG epochs, minibatch reuse) and the integrator's (SGHMC momentum refresh).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from math import lcm

import numpy as np

from simulate.validation import ParameterError

from .affine import Parts, eye, zeros
from .stages import Stage


@dataclass(frozen=True)
class Layout:
    """The named blocks of the chain's state x in R^D, in homogeneous coordinates x^ = (x, 1) in R^n, n = D + 1.

    A law builds its matrices with these helpers so that they fit any state (theta first, then the integrator's
    blocks, then the estimator's) and any number type.

    Parameters
    ----------
    names : tuple of str
        Block names in order; "theta" first.
    sizes : tuple of int
        Block sizes (theta's is d).
    dtype : object
        The number type of the matrices (float64, complex, or object for mpmath / sympy).
    """

    names: tuple[str, ...]
    sizes: tuple[int, ...]
    dtype: object

    @property
    def D(self) -> int:
        """D, the dimension of the state."""
        return int(sum(self.sizes))

    @property
    def n(self) -> int:
        """n = D + 1, with the homogeneous coordinate last."""
        return self.D + 1

    @property
    def d(self) -> int:
        """d, the dimension of theta."""
        return self.sizes[0]

    def slice(self, name: str) -> slice:
        """The rows of block ``name`` in x^.

        Parameters
        ----------
        name : str
            The block's name.

        Returns
        -------
        slice
        """
        i = self.names.index(name)
        start = sum(self.sizes[:i])
        return slice(start, start + self.sizes[i])

    def embed(self, name: str) -> np.ndarray:
        """The matrix that places a k-vector into the block ``name`` of x^.

        Parameters
        ----------
        name : str
            The block's name.

        Returns
        -------
        ndarray
            (n, k), k the block's size.
        """
        E = zeros((self.n, self.sizes[self.names.index(name)]), self.dtype)
        s = self.slice(name)
        for j, i in enumerate(range(s.start, s.stop)):
            E[i, j] = 1
        return E

    def select(self, name: str) -> np.ndarray:
        """The matrix that reads the block ``name`` of x^.

        Parameters
        ----------
        name : str
            The block's name.

        Returns
        -------
        ndarray
            (k, n), k the block's size.
        """
        return self.embed(name).T.copy()

    def point(self, name: str = "theta") -> np.ndarray:
        """The map x^ -> (x_block, 1): the point at which a gradient is evaluated, in homogeneous coordinates.

        Parameters
        ----------
        name : str, default "theta"
            A block of size d.

        Returns
        -------
        ndarray
            (d + 1, n).
        """
        R = zeros((self.d + 1, self.n), self.dtype)
        R[:-1] = self.select(name)
        R[-1, -1] = 1
        return R

    def difference(self, a: str, b: str | np.ndarray) -> np.ndarray:
        """The map x^ -> (x_a - x_b, 0), or (x_a - b, 0) for a constant vector b: for gradient differences.

        Parameters
        ----------
        a : str
            A block of size d.
        b : str or ndarray
            Another block of size d, or a constant d-vector.

        Returns
        -------
        ndarray
            (d + 1, n).
        """
        R = zeros((self.d + 1, self.n), self.dtype)
        if isinstance(b, str):
            R[:-1] = self.select(a) - self.select(b)
        else:
            R[:-1] = self.select(a)
            R[:-1, -1] = -np.asarray(b)
        return R

    def corner(self) -> np.ndarray:
        """The (n, n) matrix with a single 1 at the homogeneous corner.

        Returns
        -------
        ndarray
            (n, n).
        """
        C = zeros((self.n, self.n), self.dtype)
        C[-1, -1] = 1
        return C


@dataclass(frozen=True)
class Context:
    """What a law reads besides its simulator object.

    Parameters
    ----------
    parts : Parts
        The model's affine parts in the kernel's number type: ``prior_matrix()`` G_0 = [-P_0, r_0] (d, d + 1),
        ``gradient_matrix_sum()`` sum_i G_i, ``gradient_matrices(idx)`` the G_i, ``dim``, ``n_data``.
    h : number
        The step size in that number type (a sympy symbol for the series in h).
    num : callable
        Converts float64 numbers (the simulator object's parameters) to that number type, exactly for mpmath and
        sympy; use it on every constant a law reads.
    proj : ndarray or None
        (d', d): the model is a projection of the sampler's (the isotropic route of quadratic observables); a law
        whose parameters are matrices must project them (or refuse).
    """

    parts: Parts
    h: object
    num: object  # float64 -> number type (exact for mp / sympy)
    proj: np.ndarray | None = None  # (d', d): the model is a projection of the sampler's (isotropic route)

    @property
    def dtype(self):
        """The number type of the matrices."""
        return self.parts.dtype

    def vector(self, x) -> np.ndarray:
        """A d-vector read from the sampler (e.g. a control variate's centre) in this context's coordinates and numbers.

        Parameters
        ----------
        x : array_like
            (d,), float64.

        Returns
        -------
        ndarray
            Projected by ``proj`` when the model is a projection, converted by ``num``.
        """
        x = np.asarray(x, dtype=np.float64)
        return self.num(x if self.proj is None else self.proj @ x)


@dataclass(frozen=True)
class Kernel:
    """``phases[p]``: the stages of a step at phase p, applied in order; ``init`` (n, d+1) maps (theta_0, 1) to x^_0;
    ``init_noise`` (n, n): the covariance of the independent initial draws (SGHMC's v_0 ~ N(0, h I)); ``first``: the
    stages of step 0 where they differ from phase 0's (BAOAB's opening half-kick), else None."""

    layout: Layout
    phases: tuple[tuple[Stage, ...], ...]
    init: np.ndarray
    init_noise: np.ndarray
    first: tuple[Stage, ...] | None = None

    @property
    def period(self) -> int:
        return len(self.phases)

    def first_matrix(self, phase: int) -> np.ndarray:
        """Psi_p with E[x^_{k+1}] = Psi_p E[x^_k] (n, n)."""
        return reduce(lambda acc, st: st.mean @ acc, self.phases[phase], eye(self.layout.n, self.layout.dtype))

    def second(self, phase: int, X: np.ndarray) -> np.ndarray:
        for st in self.phases[phase]:
            X = st.second(X)
        return X

    def stages_at(self, step: int) -> tuple[Stage, ...]:
        """The stages of step ``step`` (0-based): ``first`` at step 0 when given, else phase step mod P."""
        if step == 0 and self.first is not None:
            return self.first
        return self.phases[step % self.period]

    def advance(self, step: int, m: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(E x^_{k+1}, E x^_{k+1} x^_{k+1}^T) from those of step k = ``step``."""
        for st in self.stages_at(step):
            m, X = st.mean @ m, st.second(X)
        return m, X

    def initial(self, m0: np.ndarray, C0: np.ndarray, first_ok: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """(E x^_0, E x^_0 x^_0^T) for theta_0 ~ N(m0, C0) (C0 = 0: a point). A caller that steps from here by the
        phases alone must leave ``first_ok`` False: a kernel whose step 0 differs then raises."""
        if self.first is not None and not first_ok:
            raise ParameterError("this sampler's step 0 differs from its later steps (BAOAB's opening half-kick): its "
                                 "finite-k law is available as ExactLaw.moments / trajectory, its stationary law as "
                                 "stationary_moments; time averages from the start are not implemented for it")
        d = self.layout.d
        mh = zeros((d + 1,), self.layout.dtype)
        mh[:d] = m0
        mh[d] = 1
        Sh = np.outer(mh, mh)
        Sh[:d, :d] = Sh[:d, :d] + C0
        J = self.init
        return J @ mh, J @ Sh @ J.T + self.init_noise

    def shifted(self, origins: list[np.ndarray]) -> Kernel:
        """The same chain in coordinates x - s_p at phase p (``origins`` s_0..s_{P-1}, each (D,))."""
        n, P = self.layout.n, self.period

        def T(s, sign):
            M = eye(n, self.layout.dtype)
            M[:-1, -1] = sign * s
            return M

        phases = []
        for p, stages in enumerate(self.phases):
            st = list(stages)
            st[0] = st[0].before(T(origins[p], +1))
            st[-1] = st[-1].after(T(origins[(p + 1) % P], -1))
            phases.append(tuple(st))
        first = None
        if self.first is not None:
            first = list(self.first)
            first[0] = first[0].before(T(origins[0], +1))
            first[-1] = first[-1].after(T(origins[1 % P], -1))
            first = tuple(first)
        return Kernel(self.layout, tuple(phases), T(origins[0], -1) @ self.init, self.init_noise, first)


def common_period(*periods: int) -> int:
    return int(reduce(lcm, periods, 1))


__all__ = ["Context", "Kernel", "Layout", "common_period"]
