// Checks a delegate's processed data (its payload) before its backend parses it.
//
// ExecuTorch hands a delegate's payload to its backend as it is; a backend that trusts
// it reads wherever a damaged payload points. The payload is found in the program's
// bytes (inline data, or a segment after the extended header) and, for the backends
// pteforge links whose formats it knows (XNNPACK, where the runtime has it), checked in
// full.
#ifndef PTEFORGE_CC_RUNTIME_CHECKS_DELEGATE_CHECK_H_
#define PTEFORGE_CC_RUNTIME_CHECKS_DELEGATE_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cc/runtime/status.h"
#include "program_generated.h"

namespace pteforge {

// What a delegate call needs to be safe to make.
struct DelegateShape {
  // The number of call arguments the backend takes (inputs and outputs); SIZE_MAX when
  // the backend's format is not known here.
  size_t arguments = SIZE_MAX;
};

// `data`/`size`: the whole .pte; `where` prefixes messages.
Status CheckDelegatePayload(const executorch_flatbuffer::Program& program,
                            const executorch_flatbuffer::BackendDelegate& delegate, const uint8_t* data, size_t size,
                            const std::string& where, DelegateShape* shape);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_CHECKS_DELEGATE_CHECK_H_
