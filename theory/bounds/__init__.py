"""The papers' bounds and budget calculus, with the constants they need computed exactly where the model allows.

``chen`` (Chen et al.'s vrSG-MCMC bounds and optimal minibatch sizes), ``baker`` (Baker et al.'s Theorems 1-3 and
the ZV control variate) and ``baker_lemmas`` (their Lemmas 1-4), ``fu_zhang`` (Fu & Zhang's Theorems 3.1-3.3) and
``vollmer`` (Vollmer et al.'s Theorem 9 (arXiv 5.2) and the cheapest MSE at a cost of Section 6 and Figure 3).
"""
