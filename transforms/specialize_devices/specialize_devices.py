"""`specialize-devices`: one nested module per device, with d folded and fetches turned into
matched send/receive pairs (SPEC §5, docs/spmd-form.md "Communication").

```mlir
// before: SPMD form, N = 2
builtin.module attributes {multi.devices = ["CPU:0", "CPU:1"], multi.signature = ...} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %d = devidx.device_num : index
    ...                                                  // %src = (d + 1) mod 2
    %f = devidx.fetch %x from %src : tensor<4xf32>
    func.return %f : tensor<4xf32>
  }
}
// after
builtin.module attributes {multi.devices = [...], multi.signature = ...} {
  builtin.module @device_0 attributes {devidx.device = 0 : i64} {
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      devidx.send %x to 1 channel 0 : tensor<4xf32>
      %f = devidx.recv from 1 channel 1 : tensor<4xf32>
      func.return %f : tensor<4xf32>
    }
  }
  builtin.module @device_1 attributes {devidx.device = 1 : i64} {
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %f = devidx.recv from 0 channel 0 : tensor<4xf32>
      devidx.send %x to 0 channel 1 : tensor<4xf32>
      func.return %f : tensor<4xf32>
    }
  }
}
```

How:
1. The top module's ops (every function) become a template; each `devidx.fetch` gets a number
   in program order.
2. For each device K: a copy of the template with `devidx.device_num` replaced by the constant K,
   simplified with `devidx-simplify`'s patterns. Fetches still alive on K must have a constant
   source J_K (else PassFailedException at the fetch); dead ones are gone, so they make no
   messages.
   When the program has no fetch, it is first simplified once for all devices with the
   device-window rules (invalid_windows.py `device_window_patterns`: the SPMD form's windows
   `[[%lo, %hi]]` narrowed for every d at once); if that leaves no `devidx.device_num`, every
   device's copy would be that same program, so it is the one copy, simplified once
   (`_shared_program`; BENCH C1: 2 simplifications -> 1, the same output).
3. Device J must compute what it sends even if its own program does not need it: step 2 is
   repeated with `devidx.send` placeholders inserted in J's copy (right before each fetch whose
   value J sends) until the set of live fetches stops growing (a sent value may itself depend on
   another fetch). When J's copy still has every fetch whose value it sends (collectives: every
   device takes part in every step), the value is that fetch's operand, so the sends go into
   the copies of step 2 as they are, and step 2 is not repeated.
4. In the final copies, a fetch with J_K = K becomes `tg.contiguous` of its value (a fetch stores
   Invalid as 0), the others `devidx.recv from J_K channel C`; senders carry the same channel C,
   one per (fetch, receiver) pair, numbered from 0 in program order of the fetches, then by
   receiver. Sends and the receive of one fetch sit at that fetch's position in every device's
   program (sends first), so devices that run their programs in order meet the messages in one
   global order and, with buffered sends, cannot deadlock.

A module without `devidx.device_num` gives every device the same program. Fetches are expected
in straight-line function bodies (the SPMD form has no control flow around them).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects import devidx, tg
from xdsl_multi.dialects.devidx import DEVICE_ATTR
from xdsl_multi.dialects.multi import listed_devices
from xdsl_multi.transforms.devidx_simplify.devidx_simplify import Simplifier
from xdsl_multi.transforms.devidx_simplify.invalid_windows import (
    device_window_patterns,
    narrow_messages,
)
from xdsl_multi.transforms.value_facts import AttrCache, constant_like, int_constant

_FETCH_ID = "devidx.fetch_id"
"""Internal: a fetch's number in program order, the same in every device's copy."""

_SEND_FOR = "devidx.send_for"
"""Internal: on a placeholder send, the fetch number it serves."""

Messages = dict[int, dict[int, int]]
"""Receiver K -> fetch number -> sender J (J may be K: the fetch reads its own value)."""


def _location_text(op: Operation) -> str:
    """` at file:line:col` for an op with a source location, else nothing."""
    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f" at {loc.filename.data}:{loc.line.data}:{loc.column.data}"
    return ""


def _source_device(op: devidx.FetchOp, device: int, num_devices: int) -> int:
    """The device a fetch reads from on `device`, once d is folded. (The parameter is named
    `op` so that multi-opt's diagnostics point at the fetch.)"""
    j = int_constant(op.src)
    if j is None:
        raise PassFailedException(
            f"devidx.fetch{_location_text(op)}: its source device does not fold to a constant "
            f"on device {device}; specialize-devices needs a source that d determines"
        )
    if not 0 <= j < num_devices:
        raise PassFailedException(
            f"devidx.fetch{_location_text(op)}: on device {device} its source device is {j}, "
            f"outside [0, {num_devices})"
        )
    return j


def _fetches(module: Operation) -> Iterator[devidx.FetchOp]:
    for op in module.walk():
        if isinstance(op, devidx.FetchOp):
            yield op


def _fetch_id(op: Operation, attr: str = _FETCH_ID) -> int:
    value = op.attributes[attr]
    assert isinstance(value, IntegerAttr)
    return value.value.data


def _device_copy(template: ModuleOp, device: int) -> ModuleOp:
    """A copy of the program with `devidx.device_num` replaced by the constant `device`."""
    copy = template.clone()
    for op in list(copy.walk()):
        if isinstance(op, devidx.DeviceNumOp):
            Rewriter.replace_op(op, constant_like(op.result.type, device))
    return copy


def _shared_program(template: ModuleOp, num_devices: int, attrs: AttrCache) -> ModuleOp | None:
    """The program every device runs, when there is one: a copy of `template` simplified with
    the device-window rules (`device_window_patterns`: they narrow the SPMD form's d-dependent
    windows for all devices at once) that no longer reads `devidx.device_num` and has no
    fetch, send or receive. Then each device's copy with d folded would be this same program,
    which is already simplified (a fixed point of a superset of the copies' patterns), so
    specialize-devices simplifies it once instead of once per device (BENCH C1), and there are
    no messages to narrow. None otherwise (the copies are made from `template` as they
    were)."""
    if not any(isinstance(op, devidx.DeviceNumOp) for op in template.walk()):
        return None  # every copy is the template: nothing d-dependent to narrow once
    if any(True for _ in _fetches(template)):
        return None  # a fetch becomes a send or a receive: each device's program differs
    narrowed = template.clone()
    Simplifier(num_devices, attrs=attrs, extra=device_window_patterns(attrs))(narrowed)
    per_device = devidx.DeviceNumOp | devidx.FetchOp | devidx.SendOp | devidx.RecvOp
    if any(isinstance(op, per_device) for op in narrowed.walk()):
        return None
    return narrowed


def _simplified_copies(
    template: ModuleOp, num_devices: int, copy_simplify: Simplifier
) -> tuple[list[ModuleOp], Messages]:
    """Steps 2 and 3 of the module docstring: each device's simplified copy of `template`,
    with the placeholder sends of the values it must send, and the live fetches."""
    sends: dict[int, dict[int, list[int]]] = {}
    while True:
        copies: list[ModuleOp] = []
        messages: Messages = {}
        for device in range(num_devices):
            copy = _device_copy(template, device)
            _insert_sends(copy, sends.get(device, {}))
            copy_simplify(copy)
            messages[device] = {
                _fetch_id(f): _source_device(f, device, num_devices) for f in _fetches(copy)
            }
            copies.append(copy)
        needed = _senders(messages)
        if needed == sends:
            return copies, messages
        if not sends and _sent_values_live(messages, needed):
            # Each value to send is the operand of a fetch its sender keeps: sending it
            # keeps nothing else alive, so the sends go into these copies (step 3 done).
            for device, copy in enumerate(copies):
                _insert_sends(copy, needed.get(device, {}))
            return copies, messages
        sends = needed


def _insert_sends(module: ModuleOp, sends: dict[int, list[int]]) -> None:
    """Placeholder sends (channel 0) of each fetch's value, right before the fetch."""
    for fetch in list(_fetches(module)):
        for receiver in sends.get(_fetch_id(fetch), []):
            send = devidx.SendOp(fetch.value, receiver, 0)
            send.attributes[_SEND_FOR] = fetch.attributes[_FETCH_ID]
            Rewriter.insert_op(send, InsertPoint.before(fetch))


def _sent_values_live(messages: Messages, sends: dict[int, dict[int, list[int]]]) -> bool:
    """Whether every sender J still has each fetch whose value it must send (`sends`, from
    `_senders`) in its copy. Then a send placed before that fetch reads the fetch's own
    operand: it keeps nothing alive that is not already, so the copy with the sends simplifies
    as the copy without them and keeps the same fetches (`messages` does not change). The
    fetch's operand already has a use, so no rule that asks for a single use decides
    otherwise."""
    return all(
        fetch_id in messages[sender] for sender, by_fetch in sends.items() for fetch_id in by_fetch
    )


def _senders(messages: Messages) -> dict[int, dict[int, list[int]]]:
    """Sender J -> fetch number -> receivers (K != J), in increasing order."""
    out: dict[int, dict[int, list[int]]] = {}
    for receiver in sorted(messages):
        for fetch_id, sender in sorted(messages[receiver].items()):
            if sender != receiver:
                out.setdefault(sender, {}).setdefault(fetch_id, []).append(receiver)
    return out


def _channels(messages: Messages) -> dict[tuple[int, int], int]:
    """(fetch number, receiver) -> channel, numbered in program order, then by receiver."""
    pairs = sorted(
        (fetch_id, receiver)
        for receiver, live in messages.items()
        for fetch_id, sender in live.items()
        if sender != receiver
    )
    return {pair: channel for channel, pair in enumerate(pairs)}


def _finish(
    module: ModuleOp, device: int, messages: Messages, channels: dict[tuple[int, int], int]
) -> bool:
    """Replace the live fetches by receives or their own value, give sends their channels.
    Returns whether there was any (else the module is as simplify left it)."""
    changed = False
    for op in list(module.walk()):
        if isinstance(op, devidx.SendOp | devidx.FetchOp):
            changed = True
        if isinstance(op, devidx.SendOp) and _SEND_FOR in op.attributes:
            fetch_id = _fetch_id(op, _SEND_FOR)
            receiver = op.dest.value.data
            Rewriter.replace_op(
                op, devidx.SendOp(op.value, receiver, channels[(fetch_id, receiver)])
            )
        elif isinstance(op, devidx.FetchOp):
            fetch_id = _fetch_id(op)
            sender = messages[device][fetch_id]
            if sender == device:
                Rewriter.replace_op(op, tg.ContiguousOp(op.value))
            else:
                channel = channels[(fetch_id, device)]
                Rewriter.replace_op(op, devidx.RecvOp(sender, channel, op.result.type))
    return changed


@dataclass(frozen=True)
class SpecializeDevices(ModulePass):
    """One nested `builtin.module @device_K {devidx.device = K}` per device of `multi.devices`,
    each with d folded to K, simplified, and fetches as matched send/recv pairs."""

    name = "specialize-devices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        num_devices = self._num_devices(op)
        template = ModuleOp([])
        for program_op in list(op.body.block.ops):
            program_op.detach()
            template.body.block.add_op(program_op)
        for fetch_id, fetch in enumerate(_fetches(template)):
            fetch.attributes[_FETCH_ID] = IntegerAttr(fetch_id, i64)

        attrs = AttrCache()  # the copies share their constants' attributes
        copy_simplify = Simplifier(num_devices, device_copy=True, attrs=attrs)
        module_simplify = Simplifier(num_devices, attrs=attrs)
        shared = _shared_program(template, num_devices, attrs)
        if shared is not None:
            # Every device runs this program: one simplification, a copy per other device.
            copies = [shared, *(shared.clone() for _ in range(1, num_devices))]
            messages: Messages = {device: {} for device in range(num_devices)}
        else:
            copies, messages = _simplified_copies(template, num_devices, copy_simplify)

        channels = _channels(messages)
        device_modules: list[ModuleOp] = []
        for device, copy in enumerate(copies):
            if _finish(copy, device, messages, channels):
                module_simplify(copy)  # else: nothing left to simplify
            device_module = ModuleOp(
                _take_ops(copy),
                attributes={DEVICE_ATTR: IntegerAttr(device, i64)},
                sym_name=StringAttr(f"device_{device}"),
            )
            op.body.block.add_op(device_module)
            device_modules.append(device_module)
        # Messages carry only the lanes that hold data; receivers pad them back with zeros.
        # (A shared program has none.)
        while shared is None and narrow_messages(op, attrs):
            for device_module in device_modules:
                module_simplify(device_module)

    @staticmethod
    def _num_devices(op: ModuleOp) -> int:
        devices = listed_devices(op)
        if not devices:
            raise PassFailedException(
                "specialize-devices: the module needs a non-empty `multi.devices` attribute "
                "(the SPMD form of docs/spmd-form.md)"
            )
        for inner in op.body.block.ops:
            if isinstance(inner, ModuleOp) and DEVICE_ATTR in inner.attributes:
                raise PassFailedException(
                    "specialize-devices: the module is already specialized "
                    f"(it holds a module with `{DEVICE_ATTR}`)"
                )
        return len(devices)


def _take_ops(module: ModuleOp) -> list[Operation]:
    """Detach and return the ops of a module's body."""
    ops = list(module.body.block.ops)
    for o in ops:
        o.detach()
    return ops


__all__ = ["DEVICE_ATTR", "SpecializeDevices"]
