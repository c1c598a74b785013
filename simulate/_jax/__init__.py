"""The JAX backend of :func:`simulate.run` (private; reached through :mod:`simulate.runtime.backends`).

* :mod:`.namespace`: the primitives of :mod:`simulate.arrays` on jax.numpy / lax (registered on import);
* :mod:`.streams`: per-chain keys, the stream a step draws from, minibatch indices drawn where they are read;
* :mod:`.models`: views of the models (affine gradients from their parts, logistic regression);
* :mod:`.coverage`: which estimators, integrators and models it runs;
* :mod:`.runner`: chunks of chains, compiled loops, streamed statistics.
"""

from . import namespace as _namespace  # noqa: F401 - registers the namespace with simulate.arrays
from .runner import run

__all__ = ["run"]
