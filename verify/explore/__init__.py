"""The step-size / minibatch explorer page (``python -m verify.explore``): the exact optimal (h, n) of every sampler
under a budget as a table, and one self-contained HTML page with sliders over a precomputed grid.

The mathematics is :mod:`theory.tradeoffs` (the exact MSE surfaces and optima, from the engine) and the papers'
bounds in :mod:`theory.bounds`; here are the page's data (:mod:`.grid`: the grid, :mod:`.regimes`: the papers'
regimes drawn over it; :mod:`.logistic`: logistic regression's exact and Laplace routes), its rendering
(:mod:`.page`, ``explorer.js``, ``explorer.css``) and the command line (``__main__``).
"""
