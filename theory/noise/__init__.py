"""Gradient-noise laws: the exact moments of each estimator's error for given per-datum gradients.

``minibatch`` (plain, control-variate, SAGA and SVRG minibatch sums, with and without replacement; Baker et al.
2019), ``subset_moments`` (every moment of a minibatch sum of a fixed data set; Vollmer et al. 2016, eq. (16) and
Appendix 10.1), ``stratified`` (Fu & Zhang 2017's clustered estimator, Lemmas 3.2-3.4) and ``vr`` (Chen et al.'s
variance-reduced estimators: Gamma, A, B, C, lambda of Lemma 2, Proposition 10 and Theorem 6).
"""
