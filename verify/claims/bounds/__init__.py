"""Claim family ``bounds`` (``python -m verify --paper bounds``): every published bound of
:mod:`theory.bounds.literature`, held to the exact laws at every point of the atlas (:mod:`theory.atlas`) through
the same API a user's bound uses (:func:`verify.bounds.register_bound`). docs/bounds.md holds the slack table and the
provenance of every constant."""
