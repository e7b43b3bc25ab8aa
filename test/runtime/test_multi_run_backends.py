"""multi-run with the compiled backends: threads (the default) on kernel-level programs,
--check, --time, the progress line, --recv-timeout, exit codes, atomic output and untouched
inputs. (MPI: test_mpi_backend.py; the interp backend: test_multi_run_cli.py.)"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from kernel_programs import exchange_program

from xdsl_multi.dialects import make_context
from xdsl_multi.dialects.parsing import parse_mlir
from xdsl_multi.tools import multi_run as multi_run_module
from xdsl_multi.tools.result_check import first_mismatch, result_rtols


def multi_run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xdsl_multi.tools.multi_run", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=None if env is None else {**os.environ, **env},
    )


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """multi-run in this process (fast: no start-up), for everything but the end-to-end runs."""

    def run_in_process(*args: object) -> Result:
        capsys.readouterr()
        code = multi_run_module.run_multi_run([str(a) for a in args])
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run_in_process


def ok(r: Result | subprocess.CompletedProcess[str]) -> Result | subprocess.CompletedProcess[str]:
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r


def fails(r: Result | subprocess.CompletedProcess[str], message: str, code: int = 1) -> None:
    assert r.returncode == code, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    assert "Traceback" not in r.stderr + r.stdout
    assert message in r.stderr, r.stderr


def expected(x: np.ndarray, y: np.ndarray, n: int) -> list[np.ndarray]:
    s = (x + y).reshape(n, -1)
    return [x + y, np.stack([s[d] + s[(d - 1) % n] for d in range(n)])]


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    prog = tmp_path / "prog.mlir"
    prog.write_text(exchange_program(2))
    x = np.arange(8, dtype=np.float32)
    y = np.linspace(-2, 2, 8, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    return {"prog": prog, "x": tmp_path / "x.npy", "y": tmp_path / "y.npy", "dir": tmp_path}


def inputs_of(files: dict[str, Path]) -> list[str]:
    return ["--input", f"x={files['x']}", "--input", f"y={files['y']}"]


def test_threads_is_the_default_and_checks_against_interp(files: dict[str, Path]) -> None:
    before = {k: (files[k].read_bytes(), files[k].stat().st_mtime_ns) for k in ("x", "y")}
    out = files["dir"] / "out.npz"
    r = ok(multi_run(files["prog"], *inputs_of(files), "--output", out, "--check", "--time"))
    assert "check: threads matches interp (2 results)" in r.stdout
    for line in ("parse", "convert-to-llvm", "codegen", "first run", "steady run min (5 runs)"):
        assert f"time: {line}" in r.stderr, r.stderr
    assert "steady run median (5 runs)" in r.stderr
    assert "memory: peak live buffers: device 0 32 B, device 1 32 B" in r.stderr
    with np.load(out) as saved:
        for j, want in enumerate(expected(np.load(files["x"]), np.load(files["y"]), 2)):
            np.testing.assert_array_equal(saved[f"result{j}"], want)
    assert not [p for p in os.listdir(files["dir"]) if p.endswith(".tmp")]
    assert {k: (files[k].read_bytes(), files[k].stat().st_mtime_ns) for k in ("x", "y")} == before


def test_threads_and_interp_print_the_same_results(files: dict[str, Path], run) -> None:
    threads = ok(run(files["prog"], "--random-inputs", "--seed", "4", "--runs", "2"))
    interp = ok(run(files["prog"], "--random-inputs", "--seed", "4", "--backend", "interp"))
    assert threads.stdout == interp.stdout
    assert "result1: tensor<4xf32" in threads.stdout


def test_a_multi_level_program_needs_the_whole_pipeline(
    tmp_path: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDSL_MULTI_PIPELINE_CACHE", "0")  # the passes run, whatever ran before
    prog = tmp_path / "p.mlir"
    prog.write_text(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = arith.addf %x, %x : tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n}\n"
    )
    r = ok(run(prog, "--random-inputs", "--check", "--time"))
    assert "check: threads matches interp" in r.stdout
    # one device, nothing between devices: the kernels are built once, from the SPMD level
    # (pipeline.lower_for_runtime's route for a program whose devices differ only in windows)
    for name in ("multi-to-devidx", "devidx-simplify", "form-kernels{spmd=true}", "convert"):
        assert f"time: {name}" in r.stderr
    assert "specialize-devices" not in r.stderr


def _sum_to_every_device(columns: int) -> str:
    """x (8, columns) sharded on axis 0 over 2 devices, summed over axis 0 to both: a local
    sum and an allreduce of `columns` elements."""
    return (
        '#s = #multi.shard<["CPU:0", "CPU:1"], axis = 0>\n'
        '#r = #multi.on<["CPU:0", "CPU:1"]>\n'
        'module attributes {multi.devices = ["CPU:0", "CPU:1"]} {\n'
        f"  func.func @main(%x: tensor<8x{columns}xf32, #s>) -> tensor<1x{columns}xf32, #r> {{\n"
        f"    %y = tg.reduce add %x [0] : tensor<8x{columns}xf32, #s> -> tensor<1x{columns}xf32, #r>\n"
        f"    func.return %y : tensor<1x{columns}xf32, #r>\n  }}\n}}\n"
    )


def test_a_program_with_messages_is_specialized(
    tmp_path: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An allreduce of 2048 elements moves data between devices: the default pipeline
    specializes each device's program (specialize-devices narrows each sender's messages)."""
    monkeypatch.setenv("XDSL_MULTI_PIPELINE_CACHE", "0")
    prog = tmp_path / "p.mlir"
    prog.write_text(_sum_to_every_device(2048))
    r = ok(run(prog, "--random-inputs", "--check", "--time"))
    assert "check: threads matches interp" in r.stdout
    for name in ("multi-to-devidx", "devidx-simplify", "specialize-devices", "form-kernels"):
        assert f"time: {name} " in r.stderr


def test_a_small_allreduce_takes_spmd_modes_passes(
    tmp_path: Path, run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An allreduce of 4 elements is latency, not data: the default pipeline builds the
    program once, as SPMD mode does, and the runtime moves the allreduce (pipeline.py
    `_small_allreduces_route`)."""
    monkeypatch.setenv("XDSL_MULTI_PIPELINE_CACHE", "0")
    prog = tmp_path / "p.mlir"
    prog.write_text(_sum_to_every_device(4))
    r = ok(run(prog, "--random-inputs", "--check", "--time"))
    assert "check: threads matches interp" in r.stdout
    for name in (
        'multi-to-devidx{collectives="ops"}',
        "devidx-simplify",
        "form-kernels{spmd=true}",
    ):
        assert f"time: {name} " in r.stderr
    assert "specialize-devices" not in r.stderr


def test_progress_line_for_slow_compiles(
    files: dict[str, Path], run, monkeypatch: pytest.MonkeyPatch
) -> None:
    quiet = ok(run(files["prog"], "--random-inputs"))
    assert "compiling" not in quiet.stderr
    monkeypatch.setenv("XDSL_MULTI_PROGRESS_AFTER", "0")
    r = ok(run(files["prog"], "--random-inputs"))
    assert f"multi-run: compiling {files['prog']}: " in r.stderr
    assert "codegen" in r.stderr and f"multi-run: compiled {files['prog']} in " in r.stderr


def test_receive_timeout_names_the_sender_and_channel(tmp_path: Path, run) -> None:
    prog = tmp_path / "slow.mlir"
    prog.write_text(exchange_program(2, 8192, spin_device0=200_000))
    start = time.perf_counter()
    fails(
        run(prog, "--random-inputs", "--recv-timeout", "0.2"),
        "multi-run: error: device 1 failed at step 3 (recv from device 0 channel 0): no "
        "message from device 0 on channel 0 after 0.2 s",
    )
    assert time.perf_counter() - start < 30
    fails(run(prog, "--random-inputs", "--recv-timeout", "0"), "--recv-timeout")


def test_a_receive_without_a_send_is_found_before_running(files: dict[str, Path], run) -> None:
    text = files["prog"].read_text().replace("devidx.send %s to 0 channel 0 : memref<4xf32>", "")
    files["prog"].write_text(text)
    fails(
        run(files["prog"], "--random-inputs"),
        "device 1 sends 0 message(s) to device 0 on channel 0, but device 0 receives 1",
    )


@pytest.mark.parametrize("backend", ["threads", "interp"])
def test_bad_inputs(files: dict[str, Path], backend: str, run) -> None:
    d = files["dir"]
    np.save(d / "short.npy", np.zeros(7, np.float32))
    np.save(d / "f64.npy", np.zeros(8, np.float64))
    np.save(d / "obj.npy", np.array([{"a": 1}] * 8, dtype=object), allow_pickle=True)
    cases = {
        d / "missing.npy": "input 'x': no such file",
        d / "short.npy": "expected shape (8,)",
        d / "f64.npy": "expected dtype float32",
        d / "obj.npy": "holds a pickled object array",
    }
    for path, message in cases.items():
        r = run(files["prog"], "--backend", backend, "--input", f"x={path}", "--random-inputs")
        fails(r, message)


def test_device_count_must_match(files: dict[str, Path], run) -> None:
    fails(
        run(files["prog"], "--random-inputs", "--devices", "3"),
        "the program runs on 2 devices, but 3 were asked for",
    )


# ---------------------------------------------------------------------------------------------
# In process: --check mismatches, internal errors, interrupted output
# ---------------------------------------------------------------------------------------------


def test_first_mismatch_names_result_index_and_values() -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert first_mismatch([a], [a.copy()], "threads") is None
    b = a.copy()
    b[1, 2] = 7.5
    assert first_mismatch([a, b], [a, a], "threads") == (
        "result1 differs at index (1, 2): threads 7.5, interp 5.0 (1 of 6 elements differ)"
    )
    close = a * (1 + 3e-6)
    assert first_mismatch([close], [a], "threads") is None  # rounding
    nan = np.array([np.nan, np.inf], np.float32)
    assert first_mismatch([nan], [nan.copy()], "mpi") is None
    ints = np.array([1, 2], np.int32)
    assert "result0 differs at index (1,): mpi 3, interp 2" in (
        first_mismatch([np.array([1, 3], np.int32)], [ints], "mpi") or ""
    )
    assert first_mismatch([ints], [ints.astype(np.int64)], "mpi") == (
        "result0: mpi gives int32[2], interp int64[2]"
    )


F32_THEN_F64 = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf32>) {
  %e = math.exp %x : tensor<4xf32>
  %c = tg.cast %e : tensor<4xf32> -> tensor<4xf64>
  %f = math.exp %y : tensor<4xf64>
  func.return %c, %f, %x : tensor<4xf64>, tensor<4xf64>, tensor<4xf32>
}
"""


def test_a_result_computed_in_f32_is_judged_as_f32_even_when_cast_to_f64() -> None:
    """Random program 9739 (soak, session 18): `math.exp` in f32, then `tg.cast` to f64. The
    JIT's expf and numpy's exp differ by one f32 ulp there, which the f64 tolerance called a
    mismatch: the digits past f32's are the f32 step's rounding, not the compiled path's."""
    module = parse_mlir(make_context(), F32_THEN_F64)
    assert result_rtols(module) == [1e-5, 1e-12, 0.0]  # the argument %x computes nothing
    want = np.array([0.9992077946662903, 1.5, 2.0, 3.0])
    one_f32_ulp = want.copy()
    one_f32_ulp[0] = 0.9992077350616455  # what threads gave for random_program(9739)
    x = np.ones(4, np.float32)
    rtols = result_rtols(module)
    assert first_mismatch([one_f32_ulp, want, x], [want, want, x], "threads", rtols) is None
    assert first_mismatch([want, one_f32_ulp, x], [want, want, x], "threads", rtols) == (
        "result1 differs at index (0,): threads 0.9992077350616455, interp 0.9992077946662903 "
        "(1 of 4 elements differ)"
    )
    # Without the program's precisions the f32 step's rounding is a mismatch too.
    assert first_mismatch([one_f32_ulp], [want], "threads") is not None


def test_check_mismatch_exits_1_with_the_first_element(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Wrong(multi_run_module.Program):
        def gather(self, local):  # type: ignore[no-untyped-def]
            outputs = super().gather(local)
            outputs[1][1, 2] += 1
            return outputs

    monkeypatch.setattr(multi_run_module, "Program", Wrong)
    code = multi_run_module.run_multi_run([str(files["prog"]), *inputs_of(files), "--check"])
    err = capsys.readouterr().err
    assert code == 1
    assert "multi-run: error: check failed: result1 differs at index (1, 2): threads " in err


def test_internal_errors_exit_2(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(multi_run_module.Program, "__init__", broken)
    code = multi_run_module.run_multi_run([str(files["prog"]), "--random-inputs"])
    err = capsys.readouterr().err
    assert code == 2
    assert "internal error in multi-run: RuntimeError: a bug" in err and "Traceback" not in err


def test_an_interrupted_output_write_leaves_no_partial_file(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = files["dir"] / "out.npz"
    out.write_bytes(b"previous results")

    def interrupted(f, **arrays):  # type: ignore[no-untyped-def]
        f.write(b"PK\x03\x04 half an archive")
        raise KeyboardInterrupt

    monkeypatch.setattr(multi_run_module.np, "savez", interrupted)
    code = multi_run_module.run_multi_run(
        [str(files["prog"]), "--random-inputs", "--output", str(out)]
    )
    assert code == 130
    assert out.read_bytes() == b"previous results"
    assert sorted(p.name for p in files["dir"].iterdir()) == [
        "out.npz",
        "prog.mlir",
        "x.npy",
        "y.npy",
    ]
