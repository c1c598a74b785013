"""Each paper's linear-Gaussian chains, exactly: closed forms beside the exact engine's law of the same sampler.

``additive_noise`` (a chain whose gradient noise does not depend on the state, as a simulator sampler),
``linear_regression`` (Baker et al.'s SGLD and SGLD-CV noise in parts, ULA's stationary covariance), ``sghmc``
(SGHMC's 1-D stationary law, Chen, Fox & Guestrin 2014 eq. (15)), ``stratified`` (Fu & Zhang's CP-SGLD bias and
time-average covariance), ``chen_mse`` (the MSE of SGLD and vrSGLD time averages) and ``chen_anchor_gap`` (Chen et
al.'s Lemma 5 (V1) / Lemma 3 (V2) made exact).
"""
