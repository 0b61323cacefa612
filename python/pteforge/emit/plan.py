"""Reads the memory plan out of an emitted ExecuTorch program.

Each method's plan lists its planned buffers (`non_const_buffer_sizes`, index 0
unused): memory id 1 holds the method's activations (its work arena), memory id 2 the
state shared by all methods (MemoryPlanningPass with share_mutable_buffers=True).
Tensors carry an allocation (memory id + offset) and, for state, their fully-qualified
name (emit_mutable_buffer_names=True).
"""

from __future__ import annotations

import dataclasses
import math

from executorch.exir.schema import Program, Tensor

# Where ExecuTorch's planner puts shared mutable state.
STATE_MEMORY_ID = 2

# ScalarType enum values (c10) -> element size in bytes.
_ELEMENT_SIZE = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 15: 2}


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where a named tensor lives: planned memory id, byte offset and size."""

    memory_id: int
    offset: int
    nbytes: int


@dataclasses.dataclass(frozen=True)
class MethodPlan:
    """The planned memory of one method.

    Attributes:
      name: method name.
      buffer_sizes: bytes per planned memory id (index 0 is unused by ExecuTorch).
      named: placement of each named (state) tensor the method uses.
    """

    name: str
    buffer_sizes: tuple[int, ...]
    named: dict[str, Placement]

    @property
    def work_bytes(self) -> int:
        """Planned bytes other than state: the method's activations."""
        return sum(size for i, size in enumerate(self.buffer_sizes) if i != STATE_MEMORY_ID)

    @property
    def state_bytes(self) -> int:
        """Size of the shared state arena as this method sees it."""
        sizes = self.buffer_sizes
        return sizes[STATE_MEMORY_ID] if len(sizes) > STATE_MEMORY_ID else 0


def _nbytes(tensor: Tensor) -> int:
    return math.prod(tensor.sizes) * _ELEMENT_SIZE.get(int(tensor.scalar_type), 4)


def read_plans(program: Program) -> dict[str, MethodPlan]:
    """The memory plan of every method (constant methods included), by name."""
    plans = {}
    for plan in program.execution_plan:
        named: dict[str, Placement] = {}
        for value in plan.values:
            tensor = value.val
            if not isinstance(tensor, Tensor) or tensor.allocation_info is None:
                continue
            info = tensor.extra_tensor_info
            name = getattr(info, "fully_qualified_name", None) if info else None
            if name:
                named[name] = Placement(
                    memory_id=tensor.allocation_info.memory_id,
                    offset=tensor.allocation_info.memory_offset_low
                    + (tensor.allocation_info.memory_offset_high << 32),
                    nbytes=_nbytes(tensor),
                )
        plans[plan.name] = MethodPlan(plan.name, tuple(plan.non_const_buffer_sizes), named)
    return plans


def constant_data_bytes(program: Program, data: bytes) -> int:
    """Bytes of constant tensor data and delegate payloads in the serialized program:
    the segments after the flatbuffer (constants, delegate blobs, XNNPACK's weights),
    whose total size the extended header records, or what is inline without them."""
    # When serialization writes segments (ExecuTorch's default), it moves the constant
    # buffers and delegate payloads there; the in-memory program still holds them, so
    # counting both would count them twice.
    segments = _segment_data_size(data)
    if segments:
        return segments
    inline = sum(len(buffer.storage) for buffer in program.constant_buffer)
    return inline + sum(len(delegate.data) for delegate in program.backend_delegate_data)


def _segment_data_size(data: bytes) -> int:
    # The .pte extended header at byte 8: b"eh00", u32 header length, u64 program
    # size, u64 segment base offset, u64 segment data size (little-endian).
    if len(data) < 40 or data[8:12] != b"eh00":
        return 0
    return int.from_bytes(data[32:40], "little")
