"""Chen, Wang, Zhang, Su & Carin's (vrSG-MCMC) lambda as printed (Theorem 6 / Proposition 10), kept apart from the
corrected form it is checked against (:func:`theory.noise.vr.lambda_corrected`; docs/papers/chen.md secs. 3-5).
Numbering: V1 = arXiv version, V2 = SCIS 2019 (docs/papers/chen.md sec. 1).
"""

from __future__ import annotations

import numpy as np

from theory.noise.minibatch import per_datum_rows
from theory.noise.vr import _X, GaussianData, _sizes, _sums


def lambda_printed(beta, n1: int, n2: int, literal: bool = False) -> float:
    """lambda_l as printed: (N/n1 - N/n2) sum_{ij} b_i.b_j - 2 (X2 - X1) sum_{i<j} b_i.b_j (first sum read with b_j).

    ``literal=True`` reads the first sum as printed, sum_{ij} b_i.b_i = N sum_i ``||b_i||^2``. The corrected form is
    :func:`theory.noise.vr.lambda_corrected`.

    Parameters
    ----------
    beta : array_like, shape (N, d) or (N,)
        beta_i = grad log p(d_i | theta_tilde), the per-datum gradients at the anchor.
    n1 : int
        The anchor minibatch size.
    n2 : int
        The minibatch size of each step.
    literal : bool, default False
        Read the first sum literally.

    Returns
    -------
    float

    Raises
    ------
    ParameterError
        When a minibatch size is out of range.

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Theorem 6 (V1) / Theorem 2 (V2), as printed (:doc:`/papers/chen`,
    secs. 3 and 6).
    """
    b = per_datum_rows("beta", beta)
    N_ = b.shape[0]
    _sizes(N_, n1=n1, n2=n2)
    s_all, _, s_lt = _sums(b, b)
    first = N_ * float(np.einsum("id,id->", b, b)) if literal else s_all
    return (N_ / n1 - N_ / n2) * first - 2 * (_X(N_, n2) - _X(N_, n1)) * s_lt


def gaussian_lambda_printed_stationary(gd: GaussianData, n1: int, n2: int) -> float:
    """The printed lambda_l averaged over theta_tilde ~ posterior on the Gaussian mean model (first sum with beta_j).

    -N^2 (n1 - n2)(2 N (N-1) ``E||x_bar - theta_tilde||^2`` - S_xx)/(n1 n2 (N-1) sigma^4), with
    ``E||x_bar - theta_tilde||^2 = d/P + ||x_bar - mu||^2``.

    Parameters
    ----------
    gd : theory.noise.vr.GaussianData
        The data.
    n1 : int
        The anchor minibatch size.
    n2 : int
        The minibatch size of each step.

    Returns
    -------
    float

    References
    ----------
    Chen, Wang, Zhang, Su & Carin (2019), Theorem 6 (V1) / Theorem 2 (V2), as printed (:doc:`/papers/chen`, sec. 5).
    """
    _sizes(gd.N, n1=n1, n2=n2)
    N_ = gd.N
    d = gd.x.shape[1]
    e2 = d / gd.P + float(np.sum((gd.x.mean(0) - gd.mu) ** 2))
    return -(N_**2) * (n1 - n2) * (2 * N_ * (N_ - 1) * e2 - gd.Sxx) / (n1 * n2 * (N_ - 1) * gd.sigma**4)


__all__ = ["gaussian_lambda_printed_stationary", "lambda_printed"]
