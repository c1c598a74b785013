"""Each paper's formulas as printed, kept apart from the derivations and checked against them.

``vollmer`` (the toy's stationary moments, eqs. (17)-(21), with eq. (9)'s mSGLD as printed), ``chen`` (lambda and
the Gaussian stationary variance as printed) and ``fu_zhang`` (Lemma 3.4 as printed, exact with replacement only).
"""
