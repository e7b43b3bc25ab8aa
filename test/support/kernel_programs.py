"""Hand-written kernel-level programs (the contract form-kernels produces) for the executor's
tests: a top module with `multi.devices` and `multi.signature` holding one
`builtin.module @device_K` per device, each with `{multi.kernel}` functions over memrefs and a
host schedule `@main`."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from xdsl_multi.dialects import make_context


def parse(text: str) -> ModuleOp:
    """Parse without verifying (devidx.send/recv on memrefs may not verify yet)."""
    return Parser(make_context(), text).parse_module()


def devices_attr(n: int) -> str:
    return "[" + ", ".join(f'"CPU:{d}"' for d in range(n)) + "]"


def binary_kernel(name: str, op: str, n: int, dtype: str = "f32") -> str:
    """`@name(%a, %b, %out: memref<NxT>)`: out[i] = a[i] OP b[i], as scf.for over loads."""
    m = f"memref<{n}x{dtype}>"
    return f"""
    func.func @{name}(%a: {m}, %b: {m}, %out: {m}) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cn = arith.constant {n} : index
      scf.for %i = %c0 to %cn step %c1 {{
        %x = memref.load %a[%i] : {m}
        %y = memref.load %b[%i] : {m}
        %z = {op} %x, %y : {dtype}
        memref.store %z, %out[%i] : {m}
      }}
      func.return
    }}"""


def spin_kernel(name: str, n: int, iterations: int) -> str:
    """`@name(%a: memref<NxF32>)`: `iterations` times, a running sum along `a` written back
    into it (to be slow). Each element waits for the one before (a chain of dependent adds
    through memory), so neither LLVM's vectorizer nor a fast machine shortens it: about
    `3 * n * iterations` cycles."""
    m = f"memref<{n}xf32>"
    return f"""
    func.func @{name}(%a: {m}) attributes {{multi.kernel}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cn = arith.constant {n} : index
      %ck = arith.constant {iterations} : index
      %zero = arith.constant 0.0 : f32
      scf.for %k = %c0 to %ck step %c1 {{
        %last = scf.for %i = %c0 to %cn step %c1 iter_args(%acc = %zero) -> (f32) {{
          %x = memref.load %a[%i] : {m}
          %y = arith.addf %x, %acc : f32
          memref.store %y, %a[%i] : {m}
          scf.yield %y : f32
        }}
      }}
      func.return
    }}"""


def exchange_program(n: int = 2, rows: int = 8, spin_device0: int = 0) -> str:
    """On n devices: s = x + y on each shard of rows/n; every device sends its s to the next
    device and receives the previous one's; t = s + received. With `spin_device0`, device 0
    spins that many times over its s before sending it (a slow sender).

    logical: (x, y sharded) -> (s sharded, t one buffer per device)
    numpy:   s = x + y; t[d] = s_d + s_{d-1}"""
    k = rows // n
    shard = f"#multi.shard<{devices_attr(n)}, axis = 0>"
    on = f"#multi.on<{devices_attr(n)}>"
    m = f"memref<{k}xf32>"
    sig = (
        f"(tensor<{rows}xf32, {shard}>, tensor<{rows}xf32, {shard}>) -> "
        f"(tensor<{rows}xf32, {shard}>, tensor<{k}xf32, {on}>)"
    )
    mods = []
    for d in range(n):
        spin = d == 0 and spin_device0 > 0
        mods.append(f"""
  builtin.module @device_{d} attributes {{devidx.device = {d} : i64}} {{
    {binary_kernel("kernel0", "arith.addf", k)}
    {spin_kernel("spin", k, spin_device0) if spin else ""}
    func.func @main(%x: {m}, %y: {m}) -> ({m}, {m}) {{
      %s = memref.alloc() : {m}
      func.call @kernel0(%x, %y, %s) : ({m}, {m}, {m}) -> ()
      {f"func.call @spin(%s) : ({m}) -> ()" if spin else ""}
      devidx.send %s to {(d + 1) % n} channel 0 : {m}
      %r = devidx.recv from {(d - 1) % n} channel 0 : {m}
      %t = memref.alloc() : {m}
      func.call @kernel0(%s, %r, %t) : ({m}, {m}, {m}) -> ()
      memref.dealloc %r : {m}
      func.return %s, %t : {m}, {m}
    }}
  }}""")
    return (
        f"builtin.module attributes {{multi.devices = {devices_attr(n)}, "
        f"multi.signature = {sig}}} {{{''.join(mods)}\n}}\n"
    )


def forward_program(write_received: bool = False) -> str:
    """On 2 devices: device 0 computes s = x + y and sends it to device 1, which returns
    what it received (logical result: s on CPU:1). With `write_received`, device 1 first adds
    its own x into the received buffer in place (so the send must copy)."""
    on0, on1 = '#multi.on<["CPU:0"]>', '#multi.on<["CPU:1"]>'
    m = "memref<4xf32>"
    sig = f"(tensor<4xf32, {on0}>, tensor<4xf32, {on0}>) -> tensor<4xf32, {on1}>"
    device1_work = (
        f"func.call @kernel0(%r, %x, %r) : ({m}, {m}, {m}) -> ()" if write_received else ""
    )
    return f"""
builtin.module attributes {{multi.devices = {devices_attr(2)}, multi.signature = {sig}}} {{
  builtin.module @device_0 attributes {{devidx.device = 0 : i64}} {{
    {binary_kernel("kernel0", "arith.addf", 4)}
    func.func @main(%x: {m}, %y: {m}) -> {m} {{
      %s = memref.alloc() : {m}
      func.call @kernel0(%x, %y, %s) : ({m}, {m}, {m}) -> ()
      devidx.send %s to 1 channel 3 : {m}
      func.return %s : {m}
    }}
  }}
  builtin.module @device_1 attributes {{devidx.device = 1 : i64}} {{
    {binary_kernel("kernel0", "arith.addf", 4)}
    func.func @main(%x: {m}, %y: {m}) -> {m} {{
      %r = devidx.recv from 0 channel 3 : {m}
      {device1_work}
      func.return %r : {m}
    }}
  }}
}}
"""
