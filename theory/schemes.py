"""The three schemes of Vollmer, Zygalakis & Teh (2016), as the toy-model and weak-order derivations name them.

``euler`` (the full-gradient Euler-Maruyama / ULA step), ``sgld`` (eqs. 5-6, a minibatch gradient) and ``msgld``
(eq. 9 / eq. 54, the injected noise reduced by the gradient noise's covariance).
"""

from __future__ import annotations

from simulate.validation import ParameterError

#: The schemes' names, in the order of the paper's Section 2.
METHODS = ("euler", "sgld", "msgld")


def check_method(method: str) -> str:
    """``method`` if it names one of the three schemes.

    Parameters
    ----------
    method : str
        "euler", "sgld" or "msgld" (:data:`METHODS`).

    Returns
    -------
    str

    Raises
    ------
    ParameterError
        Naming the valid methods otherwise.
    """
    if method not in METHODS:
        raise ParameterError(f"method must be one of {METHODS}, got {method!r}")
    return method


__all__ = ["METHODS", "check_method"]
