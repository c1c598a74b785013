"""Exact joint moments of minibatch sums of the per-datum affine gradients (P_i, r_i) under each sampling scheme.

Write the per-datum gradient as g_i(theta) = G_i (theta, 1) with G_i = [-P_i, r_i] (d x (d+1)). A scheme draws
counts c_i (how often datum i is in the minibatch) within groups g (one group for plain minibatches, the strata for
stratified ones) of size N_g, b_g draws per group, with or without replacement; the estimator weights a group's sum
by w_g = N_g / b_g, so sum_i w_g c_i G_i is unbiased for sum_i G_i. Within a group E c_i = b_g/N_g and

    Cov(c_i, c_j) = kappa_g (delta_ij - 1/N_g),   kappa_g = b_g/N_g (with replacement: multinomial counts),
                                                  kappa_g = b_g (N_g - b_g) / (N_g (N_g - 1)) (without: 0/1 counts),

groups independent (Vollmer et al. 2016 App. 10.1; Fu & Zhang 2017 Lemma 3.4 and its finite-population form).
Hence the exact covariance *operator* of the random matrix G_S = sum_i w_g c_i G_i: for any (d+1) x (d+1) matrix Y,

    E[(G_S - E G_S) Y (G_S - E G_S)^T] = sum_g gamma_g sum_{i in g} (G_i - Gbar_g) Y (G_i - Gbar_g)^T,
    gamma_g = w_g^2 kappa_g,

which holds E[P_S X P_S] = P X P + sum_ij C_ij P_i X P_j (docs/engine.md) and the joint moments with r_S at once.
It is applied as an operator: O(N d^2) per application for rank-one P_i = w_i z_i z_i^T, O(N d^3) for dense P_i,
O(d^2) (precomputed) when all P_i in a group are equal (additive noise). Higher count moments (for fourth moments of
the chain) are in ``theory.linear_gaussian.quadratic``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.linalg.blas import dsyrk

from simulate.validation import ParameterError

from .affine import Parts, zeros
from .symmetric import congruence, pack, size, unpack, upper

#: Largest N_g (d (d + 1))^2 for which the pair sum is the Gram matrix of the explicitly centred G_i - Gbar_g (the
#: accurate form); beyond it, linear-regression data use the rank-one form at a quarter of the cost, whose centring
#: identity rounds like the one-matrix :meth:`NoiseOperator.apply` (relative errors up to ~1e-13 on entries much
#: smaller than the largest, against ~1e-14 for the centred Gram).
PAIR_CENTRED_MAX_WORK = 2 * 10**8
#: Numbers per row block when the pair sums are formed block by block (blocks that stay in cache: 3x faster than
#: one pass over all the data at d = 20).
PAIR_CHUNK = 2**17


@dataclass(frozen=True)
class Group:
    """One group (stratum) of a sampling scheme: b_g draws among its N_g data.

    Parameters
    ----------
    members : ndarray
        The group's data indices (N_g of them).
    draws : int
        b_g, the draws from the group per step.
    replace : bool
        Draws with replacement (multinomial counts) or without (0/1 counts).
    """

    members: np.ndarray
    draws: int
    replace: bool

    @property
    def size(self) -> int:
        """N_g, the group's number of data."""
        return int(self.members.size)

    @property
    def weight(self) -> Fraction:
        """w_g = N_g / b_g, the estimator's multiplier of the group's minibatch sum (exact)."""
        return Fraction(self.size, self.draws)

    @property
    def kappa(self) -> Fraction:
        """kappa_g of Cov(c_i, c_j) = kappa_g (delta_ij - 1/N_g) (module docstring; exact)."""
        N, b = self.size, self.draws
        if self.replace:
            return Fraction(b, N)
        return Fraction(0) if N == 1 else Fraction(b * (N - b), N * (N - 1))

    @property
    def gamma(self) -> Fraction:
        """gamma_g = w_g^2 kappa_g, the group's factor in the covariance operator (module docstring; exact)."""
        return self.weight ** 2 * self.kappa


@dataclass(frozen=True)
class Scheme:
    """A sampling scheme: independent groups of minibatch draws (module docstring).

    Parameters
    ----------
    groups : tuple of Group
        The groups; they partition the data.
    """

    groups: tuple[Group, ...]

    @classmethod
    def minibatch(cls, N: int, n: int, replace: bool) -> Scheme:
        """The plain minibatch: n of the N data, uniformly, with or without replacement (Welling & Teh 2011 eq. 4).

        Parameters
        ----------
        N : int
            The number of data.
        n : int
            The minibatch size.
        replace : bool
            With replacement or without.

        Returns
        -------
        Scheme
            One group holding all the data.
        """
        return cls((Group(np.arange(N), int(n), bool(replace)),))

    @classmethod
    def stratified(cls, members, sizes, replace: bool) -> Scheme:
        """The stratified scheme: b_g draws inside each stratum, independently (Fu & Zhang 2017 eq. 10).

        Parameters
        ----------
        members : sequence of array_like
            The strata's data indices.
        sizes : sequence of int
            b_g per stratum.
        replace : bool
            Draws inside a stratum with replacement or without.

        Returns
        -------
        Scheme
        """
        return cls(tuple(Group(np.asarray(m), int(b), bool(replace)) for m, b in zip(members, sizes, strict=True)))

    @property
    def exact(self) -> bool:
        """True when the minibatch sum is deterministic (every group drawn in full without replacement)."""
        return all(g.kappa == 0 for g in self.groups)


class NoiseOperator:
    """The covariance operator Y -> sum_g gamma_g sum_{i in g} (G_i - Gbar_g) Y (G_i - Gbar_g)^T of one scheme.

    On one model's parts (module docstring): the exact second moments of the minibatch sum G_S, applied in
    O(N d^2) for rank-one P_i, O(N d^3) for dense P_i, O(d^2) when the P_i are equal within every group.

    Parameters
    ----------
    parts : Parts
        The model's affine parts, in the kernel's number type.
    scheme : Scheme
        The sampling scheme.

    References
    ----------
    :doc:`/engine`, section 3; Vollmer, Zygalakis & Teh (2016), Appendix 10.1 (the count moments); Fu & Zhang
    (2017), Lemma 3.4 and its finite-population form.
    """

    def __init__(self, parts: Parts, scheme: Scheme) -> None:
        self.parts = parts
        self.scheme = scheme
        d = parts.dim
        self._live = [g for g in scheme.groups if g.kappa != 0]
        self._gbar = [parts.gradient_matrices_mean(g.members) for g in self._live]
        if parts.form == "common":
            self._rcov = []
            for g in self._live:
                rc = parts.shifts[g.members] - self._gbar_r(g)
                self._rcov.append(rc.T @ rc)
        self.dim = d
        self._rtr_cache: dict = {}

    def _gbar_r(self, g: Group) -> np.ndarray:
        return self.parts.shifts[g.members].sum(axis=0) * self.parts.scalar(Fraction(1, g.size))

    @property
    def additive(self) -> bool:
        """True when P_S is deterministic: all P_i equal within every group that is drawn at random."""
        return self.parts.form == "common" or all(self.parts.precisions_equal(g.members) for g in self._live)

    @property
    def zero(self) -> bool:
        """True when no group is drawn at random (the minibatch sum is exact)."""
        return not self._live

    def apply(self, Y: np.ndarray) -> np.ndarray:
        """The operator applied to Y: sum_g gamma_g sum_{i in g} (G_i - Gbar_g) Y (G_i - Gbar_g)^T.

        A batch of symmetric Y (more than two axes) goes through :meth:`pair_matrix`, one matrix by the data.

        Parameters
        ----------
        Y : ndarray
            (..., d + 1, d + 1).

        Returns
        -------
        ndarray
            (..., d, d).
        """
        d = self.dim
        if Y.ndim > 2:
            return unpack(pack(Y) @ self.pair_matrix().T, d)
        out = np.zeros(Y.shape[:-2] + (d, d), dtype=Y.dtype)
        for k, g in enumerate(self._live):
            if self.parts.form == "common":
                out = out + Y[..., d, d][..., None, None] * self._rcov[k] * self.parts.scalar(g.gamma)
            else:
                out = out + self._group_sum(g, self._gbar[k], Y) * self.parts.scalar(g.gamma)
        return out

    def pair_matrix(self) -> np.ndarray:
        """The operator as a matrix on symmetric coordinates: sum_g gamma_g K_g.

        K_g = sum_{i in g} (G_i - Gbar_g) (x) (G_i - Gbar_g) restricted to symmetric arguments (upper-triangle
        coordinates, ``theory.linear_gaussian.symmetric``), one product over the group's data. K_g depends on the data
        of the group only (not on h, b_g or the sampling scheme), so it is kept on the parts for every later kernel
        built from them.

        Returns
        -------
        ndarray
            (s(d), s(d + 1)) with s(k) = k (k + 1) / 2.

        References
        ----------
        :doc:`/engine`, sections 3 and 8 (new).
        """
        d = self.dim
        out = zeros((size(d), size(d + 1)), self.parts.dtype)
        for g, gbar in zip(self._live, self._gbar, strict=True):
            key = ("pair", "all" if g.size == self.parts.n_data else g.members.tobytes())
            if key not in self.parts.memo:
                self.parts.memo[key] = self._pair_sum(g, gbar)
            out = out + self.parts.memo[key] * self.parts.scalar(g.gamma)
        return out

    def pair_flops(self) -> float:
        """Estimated floating-point operations of :meth:`pair_matrix`.

        Returns
        -------
        float
            The estimate; 0 for sums already kept on the parts.
        """
        d, total = self.dim, 0.0
        for g in self._live:
            if ("pair", "all" if g.size == self.parts.n_data else g.members.tobytes()) in self.parts.memo:
                continue
            if self.parts.form == "common":
                total += 2.0 * g.size * d * d
            elif self.parts.along is not None and g.size * (d * (d + 1)) ** 2 > PAIR_CENTRED_MAX_WORK:
                total += g.size * size(d) * (size(d) + 2 * (d + 1))
            else:
                total += 2.0 * g.size * (d * (d + 1)) ** 2
        return total

    def apply_flops(self) -> float:
        """Estimated floating-point operations of :meth:`apply` to one matrix.

        Returns
        -------
        float
            The estimate.
        """
        d, N = self.dim, sum(g.size for g in self._live)
        if self.parts.form == "common":
            return 2.0 * d * d * len(self._live)
        if self.parts.form == "rank_one":
            return 6.0 * N * (d + 1) ** 2
        return 4.0 * N * (d + 1) ** 3

    def _pair_sum(self, g: Group, gbar: np.ndarray) -> np.ndarray:
        """K_g[(a, b), (c, e)] = sum_i V_i[a, c] V_i[b, e] + [c < e] V_i[a, e] V_i[b, c], V_i = G_i - Gbar_g: one
        product over the group's data. Linear-regression data (G_i = z_i g_i^T): K_g = Zp^T Gp - N_g (Gbar (x) Gbar)
        with rows Zp_i = pack(z_i z_i^T) and Gp_i = dual(g_i g_i^T), O(N_g s(d) s(d+1)); equal precisions: only the
        shifts vary, K_g = pack(sum_i (r_i - rbar)(r_i - rbar)^T) in the corner column; otherwise the Gram matrix of
        the flattened V_i, O(N_g d^2 (d+1)^2) (also for linear-regression data up to :data:`PAIR_CENTRED_MAX_WORK`)."""
        p, d = self.parts, self.dim
        if p.form == "common":
            out = zeros((size(d), size(d + 1)), p.dtype)
            rc = p.shifts[g.members] - self._gbar_r(g)
            out[:, -1] = pack(rc.T @ rc)
            return out
        if p.along is not None and p.dtype != object and g.size * (d * (d + 1)) ** 2 > PAIR_CENTRED_MAX_WORK:
            return self._pair_sum_rank_one(g, gbar)
        V = p.gradient_matrices(g.members) - gbar
        G4 = (V.reshape(g.size, -1).T @ V.reshape(g.size, -1)).reshape(d, d + 1, d, d + 1)
        i, j = upper(d)
        ic, jc = upper(d + 1)
        a, b = i[:, None], j[:, None]
        out = G4[a, ic[None, :], b, jc[None, :]]
        off = ic != jc
        out[:, off] = out[:, off] + G4[a, jc[None, off], b, ic[None, off]]
        return out

    def _group_sum(self, g: Group, gbar: np.ndarray, Y: np.ndarray) -> np.ndarray:
        """sum_{i in g} G_i Y G_i^T - N_g Gbar Y Gbar^T (exact centring identity)."""
        p = self.parts
        R, Z, w, Pm = self._data(g)
        A, b1, b2, c = Y[..., :-1, :-1], Y[..., :-1, -1], Y[..., -1, :-1], Y[..., -1, -1]
        if Y.ndim == 2 and p.dtype != object:  # one matrix: matrix products only (BLAS)
            if p.along is not None:  # G_i = z_i g_i^T, g_i = (-w_i z_i, rho_i): sum = Z^T diag(g_i^T Y g_i) Z
                Gh = self._ghat(g)
                s = (Z * ((Gh @ Y) * Gh).sum(axis=1)[:, None]).T @ Z
                return s - g.size * gbar @ Y @ gbar.T
            if p.form == "rank_one":
                q = ((Z @ A) * Z).sum(axis=1)
                s = (Z * (w * w * q)[:, None]).T @ Z
                s = s - (Z * (w * (Z @ b1))[:, None]).T @ R - (R * (w * (Z @ b2))[:, None]).T @ Z
            else:
                s = np.einsum("nij,jk,nlk->il", Pm, A, Pm, optimize=True)
                s = s - (Pm @ b1).T @ R - R.T @ (Pm @ b2)
            return s + c * self._rtr(g) - g.size * gbar @ Y @ gbar.T
        if p.form == "rank_one":
            Zb1, Zb2 = np.einsum("ni,...i->...n", Z, b1), np.einsum("ni,...i->...n", Z, b2)
            q = np.einsum("ni,...ij,nj->...n", Z, A, Z)
            s = np.einsum("ni,...n,nj->...ij", Z, w * w * q, Z)
            s = s - np.einsum("ni,...n,nj->...ij", Z, w * Zb1, R) - np.einsum("ni,...n,nj->...ij", R, w * Zb2, Z)
        else:
            s = np.einsum("nij,...jk,nlk->...il", Pm, A, Pm)
            s = s - np.einsum("nij,...j,nk->...ik", Pm, b1, R) - np.einsum("ni,...j,nkj->...ik", R, b2, Pm)
        s = s + c[..., None, None] * self._rtr(g)
        return s - g.size * np.einsum("ij,...jk,lk->...il", gbar, Y, gbar)

    def _pair_sum_rank_one(self, g: Group, gbar: np.ndarray) -> np.ndarray:
        """K_g for G_i = z_i g_i^T, g_i = (-w_i z_i, rho_i): on the columns (c, e) with e < d, sum_i w_i^2 pack(z_i
        z_i^T) dual(z_i z_i^T)^T, a symmetric Gram matrix (half the products of a general one); on the d + 1 columns
        (c, d), sum_i pack(z_i z_i^T) (rho_i g_i)^T (times 2 off the diagonal); minus N_g (Gbar (x) Gbar). Row blocks
        of the data bound the temporary memory."""
        d = self.dim
        _, Z, w, _ = self._data(g)
        rho = self._ghat(g)[:, d]
        i, j = upper(d)
        ic, jc = upper(d + 1)
        dd, cd = np.flatnonzero(jc < d), np.flatnonzero(jc == d)  # (c, e < d) in the order of upper(d); (c, d)
        gram = np.zeros((size(d), size(d)), dtype=Z.dtype)
        edge = np.zeros((size(d), d + 1), dtype=Z.dtype)
        rows = max(1, PAIR_CHUNK // size(d))
        for s in range(0, g.size, rows):
            Zp = Z[s:s + rows, i] * Z[s:s + rows, j]
            r, ws = rho[s:s + rows], w[s:s + rows]
            Zw = Zp * ws[:, None]
            if Zw.dtype == np.float64:
                gram = dsyrk(1.0, Zw, beta=1.0, c=gram, trans=1, overwrite_c=1)
            else:
                gram += Zw.T @ Zw
            ge = np.concatenate([-2.0 * (ws * r)[:, None] * Z[s:s + rows], (r * r)[:, None]], axis=1)
            edge += Zp.T @ ge
        if gram.dtype == np.float64:
            gram = np.triu(gram) + np.triu(gram, 1).T
        out = -g.size * congruence(gbar)
        out[:, dd] += gram * np.where(i == j, 1.0, 2.0)[None, :]
        out[:, cd] += edge
        return out

    def _data(self, g: Group):
        """(r_i, z_i, w_i, P_i) of the group's data (no copies when the group is all the data)."""
        p = self.parts
        whole = g.size == p.n_data
        take = (lambda a: a) if whole else (lambda a: None if a is None else a[g.members])
        return take(p.shifts), take(p.factors), take(p.weights), take(p.precisions)

    def _ghat(self, g: Group) -> np.ndarray:
        """Rows g_i = (-w_i z_i, rho_i) of the group (linear-regression data), cached."""
        key = ("ghat", id(g))
        if key not in self._rtr_cache:
            _, Z, w, _ = self._data(g)
            rho = self.parts.along if g.size == self.parts.n_data else self.parts.along[g.members]
            self._rtr_cache[key] = np.concatenate([-Z * w[:, None], rho[:, None]], axis=1)
        return self._rtr_cache[key]

    def _rtr(self, g: Group) -> np.ndarray:
        key = id(g)
        if key not in self._rtr_cache:
            R = self._data(g)[0]
            self._rtr_cache[key] = R.T @ R
        return self._rtr_cache[key]

    def centred(self) -> list[tuple[Group, np.ndarray]]:
        """The centred per-datum matrices written out, for the explicit fourth-moment route (memory N d^2).

        Returns
        -------
        list of (Group, ndarray)
            Per group drawn at random, (group, w_g (G_i - Gbar_g) for i in the group, shape (N_g, d, d + 1)).
        """
        out = []
        for g, gbar in zip(self._live, self._gbar, strict=True):
            Gi = self.parts.gradient_matrices(g.members)
            out.append((g, (Gi - gbar) * self.parts.scalar(g.weight)))
        return out


def check_scheme(scheme: Scheme, N: int) -> None:
    """Every datum belongs to exactly one group and 1 <= b_g (<= N_g without replacement)."""
    seen = np.concatenate([g.members for g in scheme.groups])
    if seen.size != N or np.unique(seen).size != N:
        raise ParameterError(f"the minibatch groups must partition the N = {N} data")
    for g in scheme.groups:
        if g.draws < 1 or (not g.replace and g.draws > g.size):
            raise ParameterError(f"each group needs 1 <= b_g{' <= N_g' if not g.replace else ''}, got b_g = "
                                 f"{g.draws} for N_g = {g.size}")


__all__ = ["Group", "NoiseOperator", "Scheme", "check_scheme"]
