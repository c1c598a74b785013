"""The simulator's private speed code, reached from outside only through two doors:

* :mod:`.draws`: random draws (minibatch indices with and without replacement, standard normals) that reproduce
  numpy's ``Generator`` bit for bit;
* :mod:`.kernels`: a model's gradient kernels (logistic regression's vector code, the Gaussian models' minibatch
  sums, SAGA's table), the Langevin update, SGLD's whole step on a chain block (fused, no GIL) and fixed-order
  linear algebra.

Nothing here changes what a sampler computes: each kernel gives the bits of the plain numpy expression it replaces or
documents its own fixed order of operations (tests/test_kernels.py, tests/test_subsample.py, tests/bits.py). The
modules starting with "_" are internal to this package.
"""
