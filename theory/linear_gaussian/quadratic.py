"""Fourth moments of the chain: the operators that carry E[x^ (x) x^ (x) x^ (x) x^] one step (quadratic observables).

For a stage M~ = Mbar + Delta + Xi (:mod:`.stages`), x^' = M~ x^ with (Delta, Xi) independent of x^, so
vec E[x^'^(x)4] = E[M~^(x)4] vec E[x^^(x)4] and E[M~^(x)4] = sum over the 3^4 ways of giving each of the four
factors Mbar, Delta or Xi of the products of Mbar and the joint moments of Delta and of Xi (Delta and Xi independent,
both mean zero):

* Xi = (Gaussian) e_c^T: E[Xi (x) Xi] = Qn (x) e_c e_c^T (slots paired), the fourth moment by Isserlis' theorem;
* Delta = sum_g sum_{i in g} c_i V_i with V_i centred in its group (sum V_i = 0): with T_sigma = (x)_{C in sigma}
  P_{|C|}, P_m = sum_i V_i^(x)m placed on the slots of C,
      E[Delta^(x)p] = sum_sigma c(sigma) T_sigma,   c(sigma) = sum_{pi <= sigma} f(pi) mu(pi, sigma),
  f(pi) = E[prod_{B in pi} c_{j_B}^{|B|}] for distinct j_B (without replacement (n)_r/(N)_r with r = |pi|; with
  replacement sum_k prod_B S(|B|, k_B) (n)_{sum k}/N^{sum k}: multinomial factorial moments), mu the Moebius function
  of the partition lattice (the inversion of theory.noise.subset_moments, here for matrices). Terms with a singleton
  block vanish (sum V_i = 0); groups are independent, so their moments combine as sums of independent mean-zero
  matrices.

The matrices are (n^4, n^4) on row-major vec(x^^(x)4): small states only (n <= 4, i.e. d <= 3 for first-order
integrators), plus isotropic models of any d through two-coordinate projections (:mod:`.time_average`).
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np

from simulate.validation import ParameterError

from ..noise.subset_moments import falling, set_partitions
from .kernel import Kernel
from .noise import Group
from .stages import Stage

#: Largest n = D + 1 for which the fourth-moment operators are formed.
QUADRATIC_MAX_N = 4
LETTERS = "abcdefghijklmnop"


def _stirling2(m: int, k: int) -> int:
    return sum((-1) ** j * math.comb(k, j) * (k - j) ** m for j in range(k + 1)) // math.factorial(k)


def count_moment(sizes: tuple[int, ...], group: Group) -> float:
    """f = E[prod_B c_{j_B}^{m_B}] for distinct indices j_B (block sizes m_B) in one group (module docstring)."""
    N, n = group.size, group.draws
    if not group.replace:
        r = len(sizes)
        return falling(n, r) / falling(N, r) if r <= N else 0.0
    total = 0.0
    for ks in itertools.product(*[range(1, m + 1) for m in sizes]):
        K = sum(ks)
        total += math.prod(_stirling2(m, k) for m, k in zip(sizes, ks, strict=True)) * falling(n, K) / N**K
    return total


@cache
def _coarsenings(p: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Set partitions of range(p) without singleton blocks (the only ones that survive centring)."""
    return tuple(tuple(tuple(b) for b in part) for part in set_partitions(range(p)) if min(map(len, part)) > 1)


def _coefficient(sigma, group: Group) -> float:
    """c(sigma) = sum_{pi <= sigma} f(pi) mu(pi, sigma): refine each block of sigma independently."""
    total = 0.0
    per_block = [list(set_partitions(list(C))) for C in sigma]
    for choice in itertools.product(*per_block):
        pi = [b for part in choice for b in part]
        mu = math.prod((-1) ** (len(part) - 1) * math.factorial(len(part) - 1) for part in choice)
        total += mu * count_moment(tuple(len(b) for b in pi), group)
    return total


def _power_sum(V: np.ndarray, m: int) -> np.ndarray:
    """P_m = sum_i V_i^(x)m as a tensor with index order (a1, b1, ..., am, bm)."""
    ins = ",".join(f"z{LETTERS[2 * t]}{LETTERS[2 * t + 1]}" for t in range(m))
    return np.einsum(f"{ins}->{LETTERS[:2 * m]}", *([V] * m))


def _place(factors: list[tuple[tuple[int, ...], np.ndarray]], p: int) -> np.ndarray:
    """Tensor product of factors, each on its slots (ascending), as a tensor with indices (a1, b1, ..., ap, bp)."""
    ins = []
    for slots, _ in factors:
        ins.append("".join(LETTERS[2 * s] + LETTERS[2 * s + 1] for s in slots))
    return np.einsum(",".join(ins) + "->" + LETTERS[:2 * p], *[f for _, f in factors])


def delta_moments(parts) -> dict[int, np.ndarray]:
    """{2, 3, 4: E[Delta^(x)p]} (index order (a1, b1, ...)) for independent groups ``parts`` ((group, V), ...)."""
    out: dict[int, np.ndarray] = {}
    m2s = []
    for g, V in parts:
        P = {m: _power_sum(V, m) for m in (2, 3, 4)}
        mom = {}
        for p in (2, 3, 4):
            mom[p] = sum(float(_coefficient(s, g)) * _place([(C, P[len(C)]) for C in s], p) for s in _coarsenings(p))
        m2s.append(mom[2])
        for p in (2, 3, 4):
            out[p] = out.get(p, 0) + mom[p]
    if len(m2s) > 1:  # cross terms of independent groups: pairs placed on {12}{34}, {13}{24}, {14}{23}
        tot = sum(m2s)
        for s in ((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)):
            out[4] = out[4] + _place([(s[0], tot), (s[1], tot)], 4) - sum(_place([(s[0], m), (s[1], m)], 4)
                                                                           for m in m2s)
    return out


def _xi_moments(Qn: np.ndarray) -> dict[int, np.ndarray]:
    n = Qn.shape[0]
    ec = np.zeros(n)
    ec[-1] = 1.0
    X2 = np.einsum("ac,b,d->abcd", Qn, ec, ec)
    X4 = sum(_place([(s[0], X2), (s[1], X2)], 4) for s in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))))
    return {2: X2, 4: X4}


def stage_fourth(stage: Stage) -> np.ndarray:
    """E[M~^(x)4] of one stage as an (n^4, n^4) matrix on row-major vec."""
    n = stage.n
    dm = delta_moments(stage.fluct.dense()) if stage.fluct is not None else {}
    xm = _xi_moments(stage.noise) if np.any(stage.noise != 0) else {}
    T = np.zeros((n, n) * 4)
    for labels in itertools.product("MDX", repeat=4):
        sd = tuple(t for t in range(4) if labels[t] == "D")
        sx = tuple(t for t in range(4) if labels[t] == "X")
        if (sd and len(sd) not in dm) or (sx and len(sx) not in xm):
            continue
        facs = [((t,), stage.mean) for t in range(4) if labels[t] == "M"]
        if sd:
            facs.append((sd, dm[len(sd)]))
        if sx:
            facs.append((sx, xm[len(sx)]))
        T = T + _place(facs, 4)
    return T.transpose(0, 2, 4, 6, 1, 3, 5, 7).reshape(n**4, n**4)


def fourth_matrices(kernel: Kernel) -> list[np.ndarray]:
    """Per phase, the (n^4, n^4) matrix of one step on vec E[x^^(x)4]."""
    n = kernel.layout.n
    if n > QUADRATIC_MAX_N:
        raise ParameterError(f"quadratic observables: the chain's state has dimension D = {n - 1}; fourth moments "
                             f"are formed for D <= {QUADRATIC_MAX_N - 1} (and for isotropic models, e.g. the Gaussian "
                             "mean model, in any d with a first-order integrator)")
    out = []
    for stages in kernel.phases:
        W = np.eye(n**4)
        for st in stages:
            W = stage_fourth(st) @ W
        out.append(W)
    return out


__all__ = ["QUADRATIC_MAX_N", "count_moment", "delta_moments", "fourth_matrices", "stage_fourth"]
