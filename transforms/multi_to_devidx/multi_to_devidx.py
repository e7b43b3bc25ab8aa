"""Pass `multi-to-devidx`: remove every `multi` op and placement encoding (SPEC §5).

The result is one SPMD program over `d = devidx.device_num` in the form of docs/spmd-form.md:
`@main` takes and returns each device's local buffers, placed values become plain tensors that
are Invalid where a device holds no data, and communication is `devidx.fetch`.

The rules, top to bottom (tinygrad's multi rewrite rules, then its symbolic migration); for each
op the first rule that applies wins (`multi_to_devidx_rules()` lists them in this order):

| multi level | SPMD form | rule |
|---|---|---|
| MULTI(x, axis) | `global(x)`: Invalid pad, d-dependent bounds | `MultiToInvalidPad` |
| LOCAL(x) (UNSHARD.src[0]) | `local(x)`, masked to x's devices | `LocalToLocalBuffer` |
| MSELECT(x, i) | `select(d == i, x, invalid)` | `MselectToSelect` |
| MSTACK(s0..sn) | `index(stack(s0..sn), k(d))` | `MstackToStackIndex` |
| COPY on(D) -> mesh(D) | the first replica's buffer, `clean`ed (mesh_rules.py) | `CopyOnToMeshKeepsSlices` |
| COPY mesh(D) -> mesh(D), refining splits | `clean(stored(x))` (mesh_rules.py) | `CopyRefiningMeshKeepsBlocks` |
| COPY from or to a mesh | shifted fetches of the blocks that change owner | `CopyWithMeshFetchesMissingBlocks` |
| COPY on(D) -> shard(D) | `clean(stored(x))`, nothing moves | `CopyKeepingSliceCleans` |
| COPY on(D) -> on(E), both N > 1 | buffer i fetched by E[i] | `CopyPermutingBuffersFetches` |
| COPY shard(all) -> shard(all), other axis, collectives=ops | `devidx.alltoall` of blocks | `CopyBetweenShardingsAlltoallOp` |
| COPY shard(all) -> shard(all) | an all-to-all of blocks | `CopyBetweenShardingsIsAllToAll` |
| COPY on(D) -> shard(all), collectives=ops | `devidx.scatter` from D[0] | `CopyFromOneDeviceScattersOp` |
| COPY on(D) -> shard(all) | D[0] sends each device its share | `CopyFromOneDeviceScatters` |
| COPY shard(all) -> on(all), collectives=ops | `devidx.allgather` of the local buffers | `CopyShardToEveryDeviceAllGathers` |
| COPY shard(all) -> on(one), collectives=ops | `devidx.gather` to that device | `CopyShardToOneDeviceGathers` |
| COPY on(D) -> on(all), collectives=ops | `devidx.broadcast` from D[0] | `CopyToEveryDeviceBroadcasts` |
| COPY shard(D) -> shard(E) on the same axis, D != E, collectives=ops | `devidx.alltoall ... rows` of overlapping row ranges, then `global`/mask | `CopyBetweenShardsOnOneAxisAlltoallOp` |
| COPY shard(D) -> shard(E) on another axis, collectives=ops | `devidx.alltoall ... from %i` of column blocks, then `global`/mask | `CopyBetweenShardsOnTwoAxesAlltoallOp` |
| COPY shard(any) -> on(E) (or to the same shard), collectives=ops | `devidx.allgather` (gather to one device) over every device, then `clean`/mask | `CopyFromShardAllGathersOp` |
| COPY on(D) -> shard(any), collectives=ops | `devidx.scatter` from D[0] over every device, then mask | `CopyFromOneDeviceToSomeScattersOp` |
| any other COPY | logical value fetched from owners | `CopyFetchesLogicalValue` |
| ALLREDUCE | naive, ring or all2all fetches | `AllreduceToFetchSchedule` |
| reduce over the shard axis (mesh: split axes) | reduce of `clean(x)` + allreduce (mesh: in groups) | `ReduceOverShardAxisToAllreduce` |
| reduce of a shard value, other axes | the reduce, then `clean` | `ShardedReduceCleansResult` |
| shrink selecting one mesh block | the shrink fetched from the block's owner in d's group | `ShrinkOfOneMeshBlockFetchesFromOwner` |
| shrink selecting one shard | shrink on the owner + fetch (+ its validity) | `ShrinkOfOneShardFetchesFromOwner` |
| `func.return` | each result's local buffer | `ReturnToLocalBuffers` |
| op with regions on placed values | rejected (diagnostic) | `PlacedOpWithRegionsIsRejected` |
| other op on placed values | the same op, encodings dropped | `PlacedOpDropsEncodings` |
| op on unplaced values | copied unchanged | `UnplacedOpIsCopied` |

"all" is the module's device list (`multi.devices`); allreduce.py holds the fetch schedules,
spmd_builder.py the views (`global`, `local`, `clean`). `@main`'s arguments become SPMD values
(`global` of a shard buffer, a `#multi.on` buffer masked to its devices) before the rules run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, Region
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from xdsl_multi.dialects.multi import (
    DEVICES_ATTR,
    SIGNATURE_ATTR,
    placement_of,
    program_devices,
)
from xdsl_multi.transforms.multi_to_devidx.allreduce import (
    AllreduceMode,
    AllreduceStrategy,
)

OpT = TypeVar("OpT", bound=Operation)
from xdsl_multi.transforms.multi_to_devidx.copy_rules import (
    AllreduceToFetchSchedule,
    CopyBetweenShardingsAlltoallOp,
    CopyBetweenShardingsIsAllToAll,
    CopyBetweenShardsOnOneAxisAlltoallOp,
    CopyBetweenShardsOnTwoAxesAlltoallOp,
    CopyFetchesLogicalValue,
    CopyFromOneDeviceScatters,
    CopyFromOneDeviceScattersOp,
    CopyFromOneDeviceToSomeScattersOp,
    CopyFromShardAllGathersOp,
    CopyKeepingSliceCleans,
    CopyPermutingBuffersFetches,
    CopyShardToEveryDeviceAllGathers,
    CopyShardToOneDeviceGathers,
    CopyToEveryDeviceBroadcasts,
)
from xdsl_multi.transforms.multi_to_devidx.generic_rules import (
    PlacedOpDropsEncodings,
    PlacedOpWithRegionsIsRejected,
    ReturnToLocalBuffers,
    UnplacedOpIsCopied,
)
from xdsl_multi.transforms.multi_to_devidx.lowering_state import (
    FunctionLowering,
    MultiRule,
    fail_at,
)
from xdsl_multi.transforms.multi_to_devidx.mesh_rules import (
    CopyOnToMeshKeepsSlices,
    CopyRefiningMeshKeepsBlocks,
    CopyWithMeshFetchesMissingBlocks,
    ShrinkOfOneMeshBlockFetchesFromOwner,
)
from xdsl_multi.transforms.multi_to_devidx.placement_rules import (
    LocalToLocalBuffer,
    MselectToSelect,
    MstackToStackIndex,
    MultiToInvalidPad,
)
from xdsl_multi.transforms.multi_to_devidx.sharded_rules import (
    ReduceOverShardAxisToAllreduce,
    ShardedReduceCleansResult,
    ShrinkOfOneShardFetchesFromOwner,
)


def multi_to_devidx_rules() -> list[MultiRule[Any]]:
    """The rules of multi-to-devidx in table order (the first that applies to an op wins)."""
    return [
        MultiToInvalidPad(),
        LocalToLocalBuffer(),
        MselectToSelect(),
        MstackToStackIndex(),
        CopyOnToMeshKeepsSlices(),
        CopyRefiningMeshKeepsBlocks(),
        CopyWithMeshFetchesMissingBlocks(),
        CopyKeepingSliceCleans(),
        CopyPermutingBuffersFetches(),
        CopyBetweenShardingsAlltoallOp(),
        CopyBetweenShardingsIsAllToAll(),
        CopyFromOneDeviceScattersOp(),
        CopyFromOneDeviceScatters(),
        CopyShardToEveryDeviceAllGathers(),
        CopyShardToOneDeviceGathers(),
        CopyToEveryDeviceBroadcasts(),
        CopyBetweenShardsOnOneAxisAlltoallOp(),
        CopyBetweenShardsOnTwoAxesAlltoallOp(),
        CopyFromShardAllGathersOp(),
        CopyFromOneDeviceToSomeScattersOp(),
        CopyFetchesLogicalValue(),
        AllreduceToFetchSchedule(),
        ReduceOverShardAxisToAllreduce(),
        ShardedReduceCleansResult(),
        ShrinkOfOneMeshBlockFetchesFromOwner(),
        ShrinkOfOneShardFetchesFromOwner(),
        ReturnToLocalBuffers(),
        PlacedOpWithRegionsIsRejected(),
        PlacedOpDropsEncodings(),
        UnplacedOpIsCopied(),
    ]


@dataclass(frozen=True)
class MultiToDevidx(ModulePass):
    """Lower the multi level to one SPMD program over the symbolic device number."""

    name = "multi-to-devidx"

    allreduce: str = "auto"
    """naive | ring | all2all | hierarchical | auto (ring when N > 2 and numel >
    ring-threshold; hierarchical for a reduce over two or more mesh dims of more than
    ring-threshold elements). hierarchical applies to reduces over two or more mesh dims and
    schedules the others as auto does."""
    ring_threshold: int = 256000
    collectives: str = "fetches"
    """fetches (SPEC §5: every allreduce is fetches) | ops (SPMD mode: an allreduce over every
    device is one `devidx.allreduce`, docs/spmd-form.md)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.allreduce not in tuple(AllreduceMode):
            raise PassFailedException(
                f"multi-to-devidx: allreduce={self.allreduce} is not one of "
                f"{', '.join(AllreduceMode)}"
            )
        if self.collectives not in ("fetches", "ops"):
            raise PassFailedException(
                f"multi-to-devidx: collectives={self.collectives} is not one of fetches, ops"
            )
        if self.ring_threshold < 0:
            raise PassFailedException(
                f"multi-to-devidx: ring-threshold must be >= 0, found {self.ring_threshold}"
            )
        devices = program_devices(op)
        if not devices:
            devices = ["CPU:0"]
        known = KnownDevices(devices)
        for f in op.walk():
            if isinstance(f, func.FuncOp):
                for t in (*f.function_type.inputs.data, *f.function_type.outputs.data):
                    known.check(f, t)
            for r in f.results:
                known.check(f, r.type)
        main = _find_main(op)
        if SIGNATURE_ATTR not in op.attributes and main is not None:
            op.attributes[SIGNATURE_ATTR] = main.function_type
        op.attributes[DEVICES_ATTR] = ArrayAttr(StringAttr(n) for n in devices)
        strategy = AllreduceStrategy(
            AllreduceMode(self.allreduce), self.ring_threshold, self.collectives == "ops"
        )
        rules = multi_to_devidx_rules()
        for f in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if f.is_declaration:
                continue
            if len(f.body.blocks) != 1:
                fail_at(f, "functions with more than one block are not supported")
            if f is not main and _is_placed_function(f):
                fail_at(f, f"only @main may take or return placed values, found @{f.sym_name.data}")
            if f is main or _uses_placement(f.body):
                FunctionLowering(devices, strategy, rules).lower_function(f)


def _find_main(module: ModuleOp) -> func.FuncOp | None:
    for f in module.walk():
        if isinstance(f, func.FuncOp) and f.sym_name.data == "main":
            return f
    return None


def _is_placed_function(f: func.FuncOp) -> bool:
    types = (*f.function_type.inputs.data, *f.function_type.outputs.data)
    return any(placement_of(t) is not None for t in types)


def _uses_placement(region: Region) -> bool:
    return any(placement_of(t) is not None for op in region.walk() for t in op.result_types)


class KnownDevices:
    """Checks that every device a type names is in `multi.devices`, once per type object: a
    module's types are a few objects used by every op (the parser makes one per text), and
    each lists up to N devices, so checking every op's types anew would be O(N) per op."""

    def __init__(self, devices: list[str]):
        self.devices = devices
        self.known = set(devices)
        self.checked: set[int] = set()  # ids of types checked (alive: the module holds them)

    def check(self, op: Operation, t: Attribute) -> None:
        if id(t) in self.checked:
            return
        enc = placement_of(t)
        if enc is not None:
            unknown = [n for n in enc.device_names if n not in self.known]
            if unknown:
                fail_at(
                    op, f"devices {unknown} are not in the module's multi.devices {self.devices}"
                )
        self.checked.add(id(t))


__all__ = ["FunctionLowering", "MultiRule", "MultiToDevidx", "multi_to_devidx_rules"]
