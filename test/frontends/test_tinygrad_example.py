"""examples/tinygrad/mlp.py (a tinygrad-sharded MLP run by xdsl-multi) runs on threads and checks
itself against numpy (it raises on a mismatch)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("tinygrad")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tinygrad" / "mlp.py"


def test_the_tinygrad_mlp_example_matches_numpy_on_threads(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = importlib.util.spec_from_file_location("tinygrad_mlp_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "--backend", "threads"])
    module.main()
    assert "on 2 devices (threads): matches numpy" in capsys.readouterr().out
