"""BENCH S1: compile time and peak compile memory as the device count N grows (issue 13).

    python -m bench.s1_compile                    # N = 2, 8, 64, 512, 1024, SPMD mode
    python -m bench.s1_compile --n 2,8 --modes specialized,spmd

Program: x (16N, 256) sharded on axis 0 over N devices; z = maximum(x*2, x); return z and
z.sum(axis=0) on every device. Each (N, mode) is compiled in a fresh process (so the peak is
that compile's, and nothing is cached): the text's parse, then the passes (multi-to-devidx ...
convert-to-llvm) and the JIT of the kernels, timed apart; peak memory is tracemalloc's over
passes + JIT. JAX (jit of the same computation with NamedSharding over N host devices, trace +
compile, after a warm-up jit of another function) runs side by side when it is installed.
The JIT's disk cache is off (a cold compile). Each measurement is repeated (`--repeat`, each
in its own process) and the least time of each stage kept, with the largest peak: the machine
is shared, and a run's time says more about the load than about N. One line per measurement,
then a table whose last columns compare each N with the smallest N of the same mode.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc


def s1_text(n: int) -> str:
    devs = ", ".join(f'"CPU:{i}"' for i in range(n))
    t = f"tensor<{16 * n}x256xf32, #multi.shard<[{devs}], axis = 0>>"
    r = f"tensor<1x256xf32, #multi.on<[{devs}]>>"
    return (
        f"builtin.module {{\n  func.func @main(%x: {t}) -> ({t}, {r}) {{\n"
        f"    %c2 = arith.constant dense<2.0> : {t}\n"
        f"    %y = arith.mulf %x, %c2 : {t}\n"
        f"    %z = arith.maximumf %y, %x : {t}\n"
        f"    %s = tg.reduce add %z [0] : {t} -> {r}\n"
        f"    func.return %z, %s : {t}, {r}\n  }}\n}}\n"
    )


def measure_ours(n: int, mode: str) -> dict[str, object]:
    from xdsl_multi.dialects import make_context
    from xdsl_multi.dialects.parsing import parse_mlir
    from xdsl_multi.lowering import jit
    from xdsl_multi.pipeline import lower_for_runtime

    text = s1_text(n)
    t0 = time.perf_counter()
    module = parse_mlir(make_context(), text)
    t1 = time.perf_counter()
    tracemalloc.start()
    lower_for_runtime(module, spmd=mode == "spmd")
    t2 = time.perf_counter()
    compiled = jit.compile_kernels(module, jit.KernelCache(disk=False))  # cold
    t3 = time.perf_counter()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "impl": "ours", "mode": mode, "N": n, "parse_s": t1 - t0, "passes_s": t2 - t1,
        "jit_s": t3 - t2, "compile_s": t3 - t1, "peak_mib": peak / 2**20,
        "ops": sum(1 for _ in module.walk()), "kernels": len(compiled),
    }


def measure_jax(n: int) -> dict[str, object]:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()[:n]), ("x",))
    x = jax.device_put(
        np.ones((16 * n, 256), np.float32), NamedSharding(mesh, PartitionSpec("x", None))
    )

    def f(x: jax.Array) -> tuple[jax.Array, jax.Array]:
        z = jnp.maximum(x * 2, x)
        return z, z.sum(axis=0, keepdims=True)

    jax.jit(lambda a: a + 1).lower(x).compile()  # the backend's start-up, not S1's compile
    tracemalloc.start()
    t0 = time.perf_counter()
    jax.jit(f).lower(x).compile()
    t1 = time.perf_counter()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"impl": "jax", "mode": "jit", "N": n, "compile_s": t1 - t0, "peak_mib": peak / 2**20}


def _child(args: list[str]) -> dict[str, object] | None:
    env = dict(os.environ)
    if args[0] == "jax":
        env["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={args[1]}"
        env["JAX_PLATFORMS"] = "cpu"
    done = subprocess.run(
        [sys.executable, "-m", "bench.s1_compile", "--child", *args],
        capture_output=True, text=True, env=env, check=False,
    )
    if done.returncode != 0:
        print(f"  {' '.join(args)}: failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def _best(runs: list[dict[str, object] | None]) -> dict[str, object] | None:
    """One measurement of repeated runs: the least of each time, the largest peak."""
    done = [r for r in runs if r is not None]
    if not done:
        return None
    best = dict(done[0])
    for key in list(best):
        if key.endswith("_s"):
            best[key] = min(float(r[key]) for r in done)  # type: ignore[arg-type]
        elif key == "peak_mib":
            best[key] = max(float(r[key]) for r in done)  # type: ignore[arg-type]
    return best


def _ratio(row: dict[str, object], base: dict[str, object], key: str) -> str:
    return f"{float(row[key]) / float(base[key]):.2f}x"  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="2,8,64,512,1024")
    ap.add_argument("--modes", default="spmd")
    ap.add_argument("--no-jax", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="processes per measurement (min)")
    ap.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        what, n = a.child[0], int(a.child[1])
        out = measure_jax(n) if what == "jax" else measure_ours(n, a.child[2])
        print(json.dumps(out))
        return
    have_jax = not a.no_jax
    if have_jax:
        import importlib.util

        have_jax = importlib.util.find_spec("jax") is not None
    rows = []
    for n in (int(v) for v in a.n.split(",")):
        for args in [["ours", str(n), mode] for mode in a.modes.split(",")] + (
            [["jax", str(n)]] if have_jax else []
        ):
            row = _best([_child(args) for _ in range(a.repeat)])
            if row:
                rows.append(row)
                print(json.dumps(row), flush=True)
    first: dict[tuple[object, object], dict[str, object]] = {}
    print(
        "\n| impl | mode | N | parse s | compile s (passes + JIT) | peak MiB "
        "| compile / smallest N | peak / smallest N |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        base = first.setdefault((r["impl"], r["mode"]), r)
        parse = f"{r['parse_s']:.3f}" if "parse_s" in r else "-"
        print(
            f"| {r['impl']} | {r['mode']} | {r['N']} | {parse} | {r['compile_s']:.3f} | "
            f"{r['peak_mib']:.1f} | {_ratio(r, base, 'compile_s')} | "
            f"{_ratio(r, base, 'peak_mib')} |"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
