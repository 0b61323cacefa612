// Checks the parts of a .pte that the ExecuTorch runtime trusts.
//
// ExecuTorch 1.5.1 verifies a program's flatbuffer structure, but then trusts its
// contents: a value index out of range, a tensor placed outside its planned buffer,
// or a list item of the wrong kind makes the runtime abort (ET_CHECK) or read out of
// bounds — the Session fuzzer found such aborts within seconds. CheckProgram walks the
// program before the runtime sees it and turns each of these into an error.
#ifndef PTEFORGE_CC_RUNTIME_CHECKS_PROGRAM_CHECK_H_
#define PTEFORGE_CC_RUNTIME_CHECKS_PROGRAM_CHECK_H_

#include <cstddef>
#include <cstdint>

#include "cc/runtime/status.h"

namespace pteforge {

// Largest planned buffer or tensor a program may describe: beyond it, sizes are taken
// as corrupted (and could overflow byte counts). What a Session actually allocates is
// capped separately (SessionOptions::max_planned_bytes).
inline constexpr int64_t kMaxPlannedBufferBytes = int64_t{1} << 40;

// `data` holds the whole .pte (`size` bytes, 8-byte aligned). Visible although this
// library compiles with hidden visibility (see its BUILD target).
__attribute__((visibility("default"))) Status CheckProgram(const uint8_t* data, size_t size);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_CHECKS_PROGRAM_CHECK_H_
