"""Brosse, Durmus & Moulines (2018), "The promises and pitfalls of stochastic gradient Langevin dynamics", NeurIPS
31 (paper id ``brosse``): the invariant means and covariances of LMC, SGLD, SGLDFP and SGD on Bayesian linear
regression (closed forms :mod:`theory.chains.brosse`, against the exact engine and simulation) and what happens as
N grows with the step scaled as 1/N. docs/papers/brosse.md is the digest; no copy of the paper's text could be read,
so its formulas are derived here and its statements are taken from its abstract and the caption of its Figure 5."""
