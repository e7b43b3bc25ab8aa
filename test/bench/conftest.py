"""The benchmark package `bench` lives at the repository root, outside the installed package:
make it importable however pytest is started."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
