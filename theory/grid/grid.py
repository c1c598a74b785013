"""The grid of :func:`theory.grid_law`: a periodic tensor grid in whitened coordinates and its Fourier lattice.

A state x in R^D (D = 1 or 2: theta, or SGHMC's (theta, v) on a 1-D model) is written x = c + L z with a centre c
and a frame L (D x D, invertible); z runs over the box [-R_1, R_1) x ... with n_j equally spaced nodes per axis,
z_j = -R_j + m Delta_j, Delta_j = 2 R_j / n_j, m = 0 .. n_j - 1. Densities on the box are represented by their
values at the nodes, i.e. by their band-limited (trigonometric) interpolant: the frequencies are
kappa_j = 2 pi k / (2 R_j) for the FFT indices k = -n_j/2 .. n_j/2 - 1. A law is held as the vector of its masses at
the nodes (density times the cell volume Delta_1 ... Delta_D in z), which sums to 1.

The frame is chosen so that the target is about unit scale in z (:mod:`.region`): then the densities are resolved
with a spacing of about half a unit, whatever the step size (the transition kernel enters through its characteristic
function, :mod:`.kernels`, never through its values on the grid).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.special import i0

from simulate.validation import ParameterError

#: Width (in z units) of the strip at the edge of the box that the law must leave empty.
TAPER = 1.0


@dataclass(frozen=True, eq=False)
class Grid:
    """Periodic tensor grid x = centre + frame z over the box ``|z_j| < half_j`` with ``sizes`` nodes (module
    docstring).

    Parameters
    ----------
    centre : ndarray, shape (D,)
        c.
    frame : ndarray, shape (D, D)
        L, invertible.
    half : ndarray, shape (D,)
        R_j > 0, the half-widths of the box in z.
    sizes : tuple of int
        n_j >= 8, even.
    """

    centre: np.ndarray
    frame: np.ndarray
    half: np.ndarray
    sizes: tuple[int, ...]

    def __post_init__(self) -> None:
        D = len(self.sizes)
        if D not in (1, 2) or np.shape(self.centre) != (D,) or np.shape(self.frame) != (D, D) \
                or np.shape(self.half) != (D,):
            raise ParameterError(f"the grid must have dimension 1 or 2 with matching centre, frame and half-widths, "
                                 f"got sizes {self.sizes}")
        if any(int(n) < 8 or int(n) % 2 for n in self.sizes):
            raise ParameterError(f"n_grid must be even and >= 8 per axis, got {self.sizes}")
        if not np.all(np.asarray(self.half) > 0) or abs(np.linalg.det(self.frame)) <= 0:
            raise ParameterError("the grid's half-widths must be > 0 and its frame invertible")

    # ------------------------------------------------------------------ geometry
    @property
    def D(self) -> int:
        """Dimension of the state."""
        return len(self.sizes)

    @property
    def n_nodes(self) -> int:
        """Number of nodes, prod n_j."""
        return int(np.prod(self.sizes))

    @cached_property
    def spacing(self) -> np.ndarray:
        """Delta_j = 2 R_j / n_j."""
        return 2.0 * np.asarray(self.half, float) / np.asarray(self.sizes, float)

    @cached_property
    def axes(self) -> tuple[np.ndarray, ...]:
        """The node coordinates z_j per axis."""
        return tuple(-r + d * np.arange(n) for r, d, n in zip(self.half, self.spacing, self.sizes, strict=True))

    @cached_property
    def kappa(self) -> tuple[np.ndarray, ...]:
        """The frequencies per axis, in numpy's FFT order."""
        return tuple(2.0 * np.pi * np.fft.fftfreq(n, d) for n, d in zip(self.sizes, self.spacing, strict=True))

    @cached_property
    def z(self) -> np.ndarray:
        """The nodes in z, shape (n_nodes, D), C order over the axes."""
        mesh = np.meshgrid(*self.axes, indexing="ij")
        return np.stack([m.reshape(-1) for m in mesh], axis=1)

    @cached_property
    def points(self) -> np.ndarray:
        """The nodes in x = c + L z, shape (n_nodes, D)."""
        return self.centre + self.z @ np.asarray(self.frame).T

    @cached_property
    def frame_inv(self) -> np.ndarray:
        """L^-1."""
        return np.linalg.inv(self.frame)

    @property
    def cell(self) -> float:
        """Volume of a cell in x: ``prod Delta_j |det L|`` (density = mass / cell)."""
        return float(np.prod(self.spacing) * abs(np.linalg.det(self.frame)))

    def to_z(self, x: np.ndarray) -> np.ndarray:
        """z = L^-1 (x - c).

        Parameters
        ----------
        x : numpy.ndarray
            States, shape (..., D).

        Returns
        -------
        numpy.ndarray
            Their z coordinates, shape (..., D).
        """
        return (np.asarray(x, float) - self.centre) @ self.frame_inv.T

    def inside(self, x: np.ndarray, margin: float = TAPER) -> np.ndarray:
        """True where x lies at least ``margin`` (z units) inside the box.

        Parameters
        ----------
        x : numpy.ndarray
            States, shape (D,) or (M, D).
        margin : float
            The distance from the edge, in z units.

        Returns
        -------
        numpy.ndarray
            Booleans, shape (M,).
        """
        z = self.to_z(np.atleast_2d(x))
        return np.all(np.abs(z) <= np.asarray(self.half) - margin, axis=-1)

    # ------------------------------------------------------------------ new grids
    def refined(self, factor: float) -> Grid:
        """The same box with about ``factor`` times as many nodes per axis (even counts; strictly fewer or more).

        Parameters
        ----------
        factor : float
            The factor on the number of nodes per axis.

        Returns
        -------
        Grid
            The refined (or coarsened) grid.
        """
        sizes = tuple(_even(n * factor) for n in self.sizes)
        if factor < 1:
            sizes = tuple(min(m, n - 2) for m, n in zip(sizes, self.sizes, strict=True))
        return Grid(self.centre, self.frame, self.half, sizes)

    def widened(self, factor: float) -> Grid:
        """The box ``factor`` times wider in every direction, at the same spacing.

        Parameters
        ----------
        factor : float
            The factor on the half-widths.

        Returns
        -------
        Grid
            The widened grid.
        """
        return Grid(self.centre, self.frame, np.asarray(self.half) * factor,
                    tuple(_even(n * factor) for n in self.sizes))

    # ------------------------------------------------------------------ functions on the grid
    def ramp_width(self, tol: float) -> float:
        """Width (z units) of the smooth ramp of :meth:`taper` that is band-limited to ``tol`` on this grid.

        2 beta max_j Delta_j / pi with beta = log(1/tol) + 2 (a Kaiser-Bessel ramp's spectrum falls like exp(-beta)
        beyond 2 beta / width).

        Parameters
        ----------
        tol : float
            The band-limit tolerance.

        Returns
        -------
        float
            The ramp's width.
        """
        return 2.0 * ramp_beta(tol) * float(np.max(self.spacing)) / np.pi

    def taper(self, width: float, tol: float) -> np.ndarray:
        """A smooth window at the nodes: 1 more than ``width`` inside the edge of the box, 0 at the edge.

        A Kaiser-Bessel ramp between (band-limited to ``tol``). Test functions are multiplied by it before they are
        propagated backwards, so that their periodic continuation is smooth.

        Parameters
        ----------
        width : float
            The ramp's width, z units (:meth:`ramp_width`).
        tol : float
            The band-limit tolerance.

        Returns
        -------
        numpy.ndarray
            The window at the nodes, shape (n_nodes,).
        """
        w = np.ones(self.n_nodes)
        for j in range(self.D):
            dist = np.asarray(self.half)[j] - np.abs(self.z[:, j])
            w *= kaiser_ramp(dist / width, ramp_beta(tol))
        return w

    def edge_mass(self, masses: np.ndarray, width: float = TAPER) -> float:
        """The mass of ``masses`` within ``width`` (z units) of the edge of the box.

        Parameters
        ----------
        masses : numpy.ndarray
            Masses at the nodes, shape (n_nodes,).
        width : float
            The strip's width, z units.

        Returns
        -------
        float
            The absolute mass in the strip.
        """
        near = np.any(np.abs(self.z) > np.asarray(self.half) - width, axis=1)
        return float(np.abs(masses[near]).sum())

    def interpolate(self, masses: np.ndarray, other: Grid) -> np.ndarray:
        """The masses of the band-limited density of ``masses`` at the nodes of ``other`` (same box and frame).

        Parameters
        ----------
        masses : numpy.ndarray
            Masses at this grid's nodes, shape (n_nodes,).
        other : Grid
            A grid over the same box and frame.

        Returns
        -------
        numpy.ndarray
            Masses at ``other``'s nodes, shape (other.n_nodes,).
        """
        dens = masses.reshape(self.sizes) / np.prod(self.spacing)
        coef = np.fft.fftn(dens)
        out = coef
        for j in range(self.D):
            n = self.sizes[j]
            k = np.fft.fftfreq(n, 1.0 / n)
            # exp(i kappa (z - z0)) with kappa = 2 pi k / (2 R), z - z0 = the other grid's nodes shifted to the origin
            arg = np.outer(other.axes[j] + self.half[j], 2.0 * np.pi * k / (2.0 * self.half[j]))
            E = np.exp(1j * arg)
            if n % 2 == 0:  # the Nyquist term as a cosine (real interpolant)
                E[:, n // 2] = np.cos(arg[:, n // 2])
            out = np.moveaxis(np.tensordot(E, out, axes=([1], [j])), 0, j)
        vals = np.real(out) / self.n_nodes
        return vals.reshape(-1) * np.prod(other.spacing)


def ramp_beta(tol: float) -> float:
    """beta = log(1/tol) + 2 of the Kaiser-Bessel ramp.

    Parameters
    ----------
    tol : float
        The band-limit tolerance (at most 1e-3 is used).

    Returns
    -------
    float
        beta.
    """
    return math.log(1.0 / min(tol, 1e-3)) + 2.0


def kaiser_ramp(t: np.ndarray, beta: float) -> np.ndarray:
    """A smooth step whose derivative is a Kaiser-Bessel window.

    int_0^t KB(s) ds / int_0^1 KB(s) ds for t in [0, 1] (0 below, 1 above), KB(s) = I0(beta sqrt(1 - (2s - 1)^2))
    (Gauss-Legendre, 80 nodes).

    Parameters
    ----------
    t : numpy.ndarray
        Where to evaluate it.
    beta : float
        The window's shape parameter (:func:`ramp_beta`).

    Returns
    -------
    numpy.ndarray
        The ramp at ``t``, in [0, 1].

    References
    ----------
    Kaiser (1974), "Nonrecursive digital filter design using the I0-sinh window function", Proc. IEEE ISCAS (the
    window).
    """
    t = np.clip(np.asarray(t, float), 0.0, 1.0)
    x, wq = np.polynomial.legendre.leggauss(80)
    s = 0.5 * (x + 1.0)
    total = 0.5 * float(wq @ i0(beta * np.sqrt(1.0 - (2 * s - 1) ** 2)))
    u = t[..., None] * s  # nodes of [0, t]
    part = 0.5 * t * (i0(beta * np.sqrt(np.clip(1.0 - (2 * u - 1) ** 2, 0.0, None))) @ wq)
    return part / total


def _even(x: float) -> int:
    """The even integer nearest x, at least 8."""
    return max(8, 2 * int(math.ceil(x / 2.0)))


__all__ = ["TAPER", "Grid", "kaiser_ramp", "ramp_beta"]
