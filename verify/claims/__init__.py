"""Claim modules, one package per paper (``vollmer``, ``chen``, ``baker``, ``fu_zhang``); importing this package
registers every claim.

Every module below this folder is imported (in name order, packages included), so a new paper part only adds its
module. Modules whose names start with "_" hold shared helpers and register nothing.
"""

import importlib
import pkgutil

for _m in sorted(m.name for m in pkgutil.walk_packages(__path__, prefix=f"{__name__}.")):
    if not _m.rsplit(".", 1)[-1].startswith("_"):
        importlib.import_module(_m)
