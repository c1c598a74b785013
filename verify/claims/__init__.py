"""Claim modules; importing this package registers every claim.

Every module in this folder is imported (in name order), so a new paper part only adds its module here.
"""

import importlib
import pkgutil

for _m in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _m.startswith("_"):
        importlib.import_module(f"{__name__}.{_m}")
