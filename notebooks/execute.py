"""Execute the notebooks and keep executed copies with their figures (``make notebooks``).

    python notebooks/execute.py [NOTEBOOK ...]     # default: every notebooks/*.ipynb

Each notebook runs top to bottom with the repository root as working directory (as tests/test_notebooks.py runs
them); the executed copy goes to output/notebooks/<name>.ipynb and each figure it shows to
output/notebooks/<name>/figure-<k>.png. The stored notebooks stay without outputs. Exit code 1 if any cell fails.
"""

from __future__ import annotations

import base64
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "output" / "notebooks"


def execute(path: Path, out: Path = OUT) -> tuple[int, float]:
    """Run one notebook, write its executed copy and figures under ``out``; returns (figures, seconds)."""
    nb = nbformat.read(path, as_version=4)
    t0 = time.perf_counter()
    NotebookClient(nb, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    seconds = time.perf_counter() - t0
    out.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out / path.name)
    figdir = out / path.stem
    figdir.mkdir(exist_ok=True)
    for old in figdir.glob("figure-*.png"):
        old.unlink()
    k = 0
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            png = o.get("data", {}).get("image/png")
            if png:
                k += 1
                (figdir / f"figure-{k}.png").write_bytes(base64.b64decode(png))
    return k, seconds


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    failed = []
    for p in paths:
        try:
            k, sec = execute(p)
            print(f"{p.name}: {k} figures, {sec:.0f} s -> {OUT / p.name}", flush=True)
        except CellExecutionError as e:
            failed.append(p.name)
            print(f"{p.name}: FAILED\n{str(e)[-2000:]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
