"""The 1-D Gaussian toy of Vollmer, Zygalakis & Teh (2016), Section 2, in closed form.

``constants`` (A, E(B), Var(B) of eqs. (14)-(16)), ``moments`` (the first two moments of Euler, SGLD and mSGLD at
every step and at stationarity, derived with sympy), ``chain`` (one chain numerically: :class:`theory.ToyChain`),
``finite_time`` and ``finite_time_sympy`` (the exact MSE of a time average at any finite time, eq. (22) and
Appendix 10) and ``data_average`` (the same averaged over random data sets, Appendix 10.2).
"""
