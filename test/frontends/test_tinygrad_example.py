"""examples/tinygrad/mlp.py (a tinygrad-sharded MLP run by xdsl-multi) runs on threads and checks
itself against numpy (it raises on a mismatch); so does README's "From tinygrad" example."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("tinygrad")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tinygrad" / "mlp.py"


def test_the_readme_tinygrad_example_runs() -> None:
    section = (ROOT / "README.md").read_text().split("## From tinygrad", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert "run(" in code and "import_tensors(" in code
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - the README's own example


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
