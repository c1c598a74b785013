"""The published bounds (:data:`theory.bounds.literature.PUBLISHED`) as claims of the family ``bounds``, each with
the verdict the atlas found (docs/bounds.md holds the numbers): a bound that holds at every atlas point and whose
order in h is looser than the exact order is registered "holds as a bound" with that finding."""

from __future__ import annotations

from theory.bounds.literature import PUBLISHED
from verify.bounds import register_bound

#: Registration of each bound: expected verdict and finding (filled from the atlas; docs/bounds.md).
REGISTRATION: dict[str, dict] = {}

for _b in PUBLISHED:
    register_bound(_b, paper="bounds", **REGISTRATION.get(_b.key, {}))
