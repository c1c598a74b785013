"""The population kernel Stein discrepancy of an exact law against the posterior (new use: KSD calibrated by exact
laws). For a grid law with stationary masses m at nodes x_a, KSD^2 = sum_ab m_a m_b k_p(x_a, x_b) with the IMQ
Stein kernel of :mod:`simulate.analysis.ksd` and the model's score grad log pi; the same for the posterior itself is 0
up to the quadrature's error (a check of the discretisation). For SGHMC the theta marginal is used.
"""

from __future__ import annotations

import numpy as np

from simulate.analysis.ksd import weighted_ksd2


def population_ksd2(law, *, c: float = 1.0, scale: float = 1.0, posterior: bool = False):
    """KSD^2 of the stationary law of ``law`` (a :class:`theory.GridLaw`) against the posterior, on the fine
    and coarse grids: a Result(value, error).

    Parameters
    ----------
    law : GridLaw
        The grid law.
    c, scale : float
        The IMQ kernel's parameters.
    posterior : bool
        True: the posterior's own masses on the same grid (KSD^2 = 0 up to quadrature: a check).

    Returns
    -------
    Result

    References
    ----------
    Gorham & Mackey (2017), Theorem 8; Liu, Lee & Jordan (2016).
    """
    from .law import Result

    vals = []
    for lv in (law.fine, law.coarse):
        pts = lv.grid.points
        m = law._posterior_weights(lv) if posterior else lv.chain.m
        if law.D != law.d:  # theta marginal of (theta, v)
            n1, n2 = lv.grid.sizes
            m = m.reshape(n1, n2).sum(axis=1)
            pts = pts.reshape(n1, n2, -1)[:, 0, : law.d]
        keep = np.abs(m) > 1e-16 * np.abs(m).max()
        x = np.ascontiguousarray(pts[keep][:, : law.d])
        s = np.asarray(law.model.grad_log_post(x), float)
        vals.append(weighted_ksd2(x, s, m[keep], c, scale))
    return Result(vals[0], abs(vals[0] - vals[1]))


__all__ = ["population_ksd2"]
