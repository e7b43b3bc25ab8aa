"""multi-run with the interp backend, run in this process: inputs by name and
position, the npz output, printing, --show-sharding, --check, --time, and every error path
(exit 1 with one message, never a traceback). The compiled backends: test_multi_run_backends.py
and test_mpi_backend.py."""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from interp_ir import func, module, on, shard, t

from xdsl_multi.tools.multi_run import run_multi_run

ST = t([7, 2], enc=shard(3))
PROGRAM = module(
    func(
        [("x", ST), ("w", t([2], enc=on(3)))],
        f"""
    %y = arith.addf %x, %x : {ST}
    %r = tg.reduce add %y [0] : {ST} -> {t([1, 2], enc=on(3))}
    %s = tg.reshape %w : {t([2], enc=on(3))} -> {t([1, 2], enc=on(3))}
    %z = arith.mulf %r, %s : {t([1, 2], enc=on(3))}
    """,
        [("y", ST), ("z", t([1, 2], enc=on(3)))],
    )
)


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


def multi_run(*args: object) -> Result:
    """multi-run in this process (no interpreter start-up per call): the exit code and what it
    wrote. test_multi_run_backends.py runs it end to end as a subprocess too."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run_multi_run([str(a) for a in args])
    return Result(code, out.getvalue(), err.getvalue())


def ok(result: Result) -> Result:
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result


def fails(result: Result, message: str) -> None:
    assert result.returncode == 1, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert "Traceback" not in result.stderr + result.stdout
    assert message in result.stderr, result.stderr


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    prog = tmp_path / "prog.mlir"
    prog.write_text(PROGRAM)
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    w = np.array([[1, 2], [3, 4], [5, 6]], np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "w.npy", w)
    return {"prog": prog, "x": tmp_path / "x.npy", "w": tmp_path / "w.npy", "dir": tmp_path}


def expected(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = 2 * x
    return y, y.sum(0, keepdims=True)[None] * w[:, None, :]


def test_output_npz_by_name_and_by_position(files: dict[str, Path]) -> None:
    out = files["dir"] / "out.npz"
    ok(
        multi_run(
            files["prog"],
            "--backend",
            "interp",
            "--input",
            f"x={files['x']}",
            "--input",
            f"arg1={files['w']}",
            "--output",
            out,
        )
    )
    with np.load(out) as saved:
        assert sorted(saved.files) == ["result0", "result1"]
        y, z = expected(np.load(files["x"]), np.load(files["w"]))
        np.testing.assert_array_equal(saved["result0"], y)
        np.testing.assert_array_equal(saved["result1"], z)
    assert not [p for p in os.listdir(files["dir"]) if p.endswith(".tmp")]


def test_print_check_time_and_inputs_untouched(files: dict[str, Path]) -> None:
    before = {k: files[k].read_bytes() for k in ("x", "w")}
    r = ok(
        multi_run(
            files["prog"],
            "--input",
            f"x={files['x']}",
            "--input",
            f"w={files['w']}",
            "--check",
            "--time",
            "--devices",
            "3",
            "--backend",
            "interp",
        )
    )
    assert "result0: tensor<7x2xf32" in r.stdout and "shape (7, 2), dtype float32" in r.stdout
    assert "result1:" in r.stdout and "shape (3, 1, 2)" in r.stdout
    assert "check: interp is the reference" in r.stdout
    assert "time: parse" in r.stderr and "run" in r.stderr
    assert {k: files[k].read_bytes() for k in ("x", "w")} == before


def test_big_arrays_are_summarized(tmp_path: Path) -> None:
    prog = tmp_path / "big.mlir"
    prog.write_text(module(func([("a", t([100, 100]))], "", [("a", t([100, 100]))])))
    r = ok(multi_run(prog, "--random-inputs", "--seed", "3"))
    assert "..." in r.stdout and len(r.stdout) < 3000


def test_random_inputs_are_reproducible(files: dict[str, Path]) -> None:
    outs = []
    for name in ("a.npz", "b.npz"):
        ok(
            multi_run(
                files["prog"], "--random-inputs", "--seed", "7", "--output", files["dir"] / name
            )
        )
        with np.load(files["dir"] / name) as saved:
            outs.append(saved["result0"])
    np.testing.assert_array_equal(outs[0], outs[1])


def test_show_sharding_pictures_uneven_and_empty_shards(tmp_path: Path) -> None:
    prog = tmp_path / "p.mlir"
    st4 = t([4, 2], enc=shard(3))
    prog.write_text(module(func([("x", ST), ("v", st4)], "", [("v", st4)])))
    r = ok(multi_run(prog, "--random-inputs", "--show-sharding"))
    out = r.stdout
    assert "arg0 %x" in out and "rows [6, 7)" in out and "1 row + 2 padding" in out
    assert "rows [4, 4)" in out and "empty + 2 padding" in out
    assert "result0" in out


def test_bf16_results_are_float32(tmp_path: Path) -> None:
    prog = tmp_path / "b.mlir"
    prog.write_text(
        module(
            func(
                [("a", t([3], "bf16"))],
                f"%r = arith.addf %a, %a : {t([3], 'bf16')}",
                [("r", t([3], "bf16"))],
            )
        )
    )
    np.save(tmp_path / "a.npy", np.array([1.0, 2.5, 1.00390625], np.float32))
    ok(multi_run(prog, "--input", f"a={tmp_path / 'a.npy'}", "--output", tmp_path / "o.npz"))
    with np.load(tmp_path / "o.npz") as saved:
        assert saved["result0"].dtype == np.float32
        np.testing.assert_array_equal(saved["result0"], [2.0, 5.0, 2.0])


# ---------------------------------------------------------------------------------------------
# Errors: exit 1, one message, no traceback
# ---------------------------------------------------------------------------------------------


def test_missing_input_file(files: dict[str, Path]) -> None:
    fails(
        multi_run(files["prog"], "--input", "x=nope.npy", "--random-inputs"),
        "input 'x': no such file 'nope.npy'",
    )


def test_bad_shape(files: dict[str, Path]) -> None:
    np.save(files["dir"] / "bad.npy", np.zeros((3, 2), np.float32))
    fails(
        multi_run(files["prog"], "--input", f"x={files['dir'] / 'bad.npy'}", "--random-inputs"),
        "expected shape (7, 2)",
    )


def test_wrong_dtype(files: dict[str, Path]) -> None:
    np.save(files["dir"] / "f64.npy", np.zeros((7, 2)))
    fails(
        multi_run(files["prog"], "--input", f"x={files['dir'] / 'f64.npy'}", "--random-inputs"),
        "expected dtype float32",
    )


def test_pickled_npy(files: dict[str, Path]) -> None:
    np.save(files["dir"] / "obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    fails(
        multi_run(files["prog"], "--input", f"x={files['dir'] / 'obj.npy'}", "--random-inputs"),
        "pickled object array",
    )


def test_not_an_npy_file(files: dict[str, Path]) -> None:
    (files["dir"] / "junk.npy").write_text("hello")
    fails(
        multi_run(files["prog"], "--input", f"x={files['dir'] / 'junk.npy'}", "--random-inputs"),
        "is not a valid .npy file",
    )
    np.savez(files["dir"] / "arch.npz", a=np.zeros(2))
    fails(
        multi_run(files["prog"], "--input", f"x={files['dir'] / 'arch.npz'}", "--random-inputs"),
        "is an .npz archive",
    )


def test_unknown_input_name(files: dict[str, Path]) -> None:
    fails(
        multi_run(files["prog"], "--input", f"q={files['x']}", "--random-inputs"),
        "unknown input name 'q' (the arguments are: x, w; or argK)",
    )
    fails(
        multi_run(files["prog"], "--input", f"arg5={files['x']}", "--random-inputs"),
        "unknown input name 'arg5'",
    )
    fails(
        multi_run(files["prog"], "--input", "x", "--random-inputs"), "--input expects NAME=FILE.npy"
    )


def test_missing_inputs_without_random_inputs(files: dict[str, Path]) -> None:
    fails(multi_run(files["prog"], "--input", f"x={files['x']}"), "missing input for 'w'")


def test_wrong_device_count(files: dict[str, Path]) -> None:
    fails(
        multi_run(files["prog"], "--random-inputs", "--devices", "2"),
        "the program runs on 3 devices, but 2 were asked for",
    )
    fails(multi_run(files["prog"], "--random-inputs", "--devices", "zero"), "--devices")


def test_parse_and_verifier_errors_have_locations(tmp_path: Path) -> None:
    prog = tmp_path / "bad.mlir"
    prog.write_text(
        module(func([("x", t([4]))], f"%y = arith.addf %x, %z : {t([4])}", [("y", t([4]))]))
    )
    fails(multi_run(prog, "--random-inputs"), f"{prog}:")
    bad = t([2], enc=on(2))
    prog.write_text(
        module(
            func(
                [("x", bad)],
                f"%s = multi.mselect %x[3] : {bad} -> {t([2], enc=on(['CPU:1']))}",
                [("x", bad)],
            )
        )
    )
    r = multi_run(prog, "--random-inputs")
    fails(r, f"{prog}:3:3: error: multi.mselect: index 3 is out of range for 2 devices")


def test_missing_program_and_output_over_an_input(files: dict[str, Path]) -> None:
    fails(multi_run(files["dir"] / "none.mlir"), "cannot read input file")
    fails(
        multi_run(
            files["prog"], "--input", f"x={files['x']}", "--random-inputs", "--output", files["x"]
        ),
        "is also an input",
    )
    fails(
        multi_run(files["prog"], "--random-inputs", "--output", files["dir"] / "no" / "o.npz"),
        "cannot write output file",
    )


def test_runtime_errors_of_the_program(tmp_path: Path) -> None:
    prog = tmp_path / "spmd.mlir"
    prog.write_text(
        module(
            func(
                [("x", t([2]))],
                f"""
    %d = devidx.device_num : index
    %c5 = arith.constant 5 : index
    %f = devidx.fetch %x from %c5 : {t([2])}
    """,
                [("f", t([2]))],
            ),
            attrs='multi.devices = ["A", "B"]',
        )
    )
    fails(multi_run(prog, "--random-inputs", "--backend", "interp"), "devidx.fetch (")


def test_spmd_mode_gives_the_specialized_results(files: dict[str, Path]) -> None:
    """`--spmd` runs the pipeline without specialize-devices (form-kernels{spmd=true}) and
    writes the same results as the default mode; --time names the SPMD form-kernels."""
    outs = {}
    for mode in ([], ["--spmd"]):
        out = files["dir"] / f"out{len(mode)}.npz"
        r = ok(
            multi_run(
                files["prog"], "--input", f"x={files['x']}", "--input", f"w={files['w']}",
                "--output", out, "--check", "--time", *mode,
            )
        )
        assert "check: threads matches interp" in r.stdout
        assert ("form-kernels{spmd=true}" in r.stderr) == bool(mode)
        assert ("specialize-devices" in r.stderr) != bool(mode)
        with np.load(out) as saved:
            outs[len(mode)] = {k: saved[k] for k in saved.files}
    y, z = expected(np.load(files["x"]), np.load(files["w"]))
    for saved in outs.values():
        np.testing.assert_array_equal(saved["result0"], y)
        np.testing.assert_array_equal(saved["result1"], z)
