"""`mpiexec -n 2 python mpi_api_driver.py PROG.mlir FOLDER`: every rank compiles @forward of
PROG with `xm.compile(..., backend="mpi")`, calls it with FOLDER/x.npy and FOLDER/b.npy and
writes its results to FOLDER/rankR.json (test/test_python_api.py checks every rank's)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import xdsl_multi as xm


def main() -> None:
    source, folder = Path(sys.argv[1]), Path(sys.argv[2])
    x, b = np.load(folder / "x.npy"), np.load(folder / "b.npy")
    with xm.compile(source, entry="forward", backend="mpi", devices=2) as prog:
        y, z = prog(x, b=b)
        rank = prog.rank
    results = {"rank": rank, "y": y.tolist(), "z": z.tolist()}
    (folder / f"rank{rank}.json").write_text(json.dumps(results))


if __name__ == "__main__":
    main()
