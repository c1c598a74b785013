"""The engine's recursions in mpmath (default 50 digits), for checking the float64 results (small states).

The kernel is built by the same code as in float64 (:func:`.law.ExactLaw.build` with number type ``"mp"``: the
model's float64 parts and h are converted exactly, every rational constant of the schemes is exact), then the
moments are propagated and the stationary equations solved with mpmath's LU decomposition at ``dps`` digits.
Results are numpy object arrays of mpmath numbers.
"""

from __future__ import annotations

import mpmath
import numpy as np

from simulate.validation import ParameterError, check_int

from . import solve
from .assembled import block_operator
from .symmetric import unpack

#: Largest state dimension D for which the explicit mpmath matrices are formed.
MP_MAX_D = 8


def _solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = mpmath.lu_solve(mpmath.matrix(A.tolist()), mpmath.matrix(b.tolist()))
    return np.array([x[i] for i in range(len(b))], dtype=object)


class MPLaw:
    """Stationary mean and covariance, E theta_k and Cov theta_k, and the spectral radius at ``dps`` digits."""

    def __init__(self, law, dps: int = 50) -> None:
        self.law = law
        self.dps = check_int("dps", dps, 16)
        if law.state_dim > MP_MAX_D:
            raise ParameterError(f"the mpmath route forms explicit matrices: state dimension D <= {MP_MAX_D}, here "
                                 f"{law.state_dim}")
        with mpmath.workdps(self.dps):
            self.kernel = law.build(law.h, "mp")

    def moments(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(E theta_k, Cov theta_k) by iterating the exact recursions (O(k))."""
        k = check_int("k", k, 0)
        K, d = self.kernel, self.law.d
        with mpmath.workdps(self.dps):
            m, S = K.initial(self.law.theta0, self.law.cov0)
            for step in range(k):
                m, S = K.first_matrix(step % K.period) @ m, K.second(step % K.period, S)
            return m[:d], S[:d, :d] - np.outer(m[:d], m[:d])

    def _stationary(self):
        K, D = self.kernel, self.kernel.layout.D
        with mpmath.workdps(self.dps):
            Psi = solve.period_first(K)
            eye = np.array(mpmath.eye(D).tolist(), dtype=object)
            m = _solve(eye - Psi[:D, :D], Psi[:D, D])
            origins = [m]
            for p in range(K.period - 1):
                origins.append((K.first_matrix(p) @ np.append(origins[-1], 1))[:D])
            T, q = block_operator(K.shifted(origins))
            Is = np.array(mpmath.eye(T.shape[0]).tolist(), dtype=object)
            C = unpack(_solve(Is - T, q), D)
            return origins[0], C, T

    def stationary_mean(self) -> np.ndarray:
        """E theta under the stationary law (phase 0)."""
        return self._stationary()[0][: self.law.d]

    def stationary_cov(self) -> np.ndarray:
        """Cov theta under the stationary law (phase 0)."""
        d = self.law.d
        return self._stationary()[1][:d, :d]

    def spectral_radius(self) -> mpmath.mpf:
        """Mean-square spectral radius per step, rho(T)^(1/P) (T on symmetric matrices, where the spectral radius
        of a positive map is attained)."""
        with mpmath.workdps(self.dps):
            T = self._stationary()[2]
            ev = mpmath.eig(mpmath.matrix(T.tolist()), left=False, right=False)
            return max(abs(v) for v in ev) ** (mpmath.mpf(1) / self.kernel.period)


__all__ = ["MP_MAX_D", "MPLaw"]
