// Checks an XNNPACK delegate payload before ExecuTorch's XNNPACK backend parses it.
//
// The backend trusts its payload: it reads the XNNGraph flatbuffer without verifying
// it, takes constant data at the offsets the graph states, hands XNNPACK shape vectors
// with the length the graph claims, and looks value ids up with unordered_map::at (an
// unknown id aborts). Four bytes changed in a payload crashed pte_run with SIGBUS. This
// check turns each of those into a Status naming the delegate; what XNNPACK validates
// itself when the graph is defined (operator parameters, ranks) is left to it.
#ifndef PTEFORGE_CC_RUNTIME_CHECKS_XNNPACK_PAYLOAD_CHECK_H_
#define PTEFORGE_CC_RUNTIME_CHECKS_XNNPACK_PAYLOAD_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "cc/runtime/status.h"

namespace pteforge {

// The bytes of a named data blob (the program's named_data, where newer exports put
// XNNPACK's weights), or size -1 when the program has no blob of that name.
using NamedDataSize = std::function<int64_t(const std::string& key)>;

// `payload` is the delegate's processed data (`size` bytes, inside the program's
// buffer); `where` names the delegate in messages ("method 'forward', delegate 0").
// `externals` receives how many of the graph's values are its inputs and outputs: the
// backend takes that many of the delegate call's arguments.
Status CheckXnnpackPayload(const uint8_t* payload, size_t size, const NamedDataSize& named_data_size,
                           const std::string& where, size_t* externals);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_CHECKS_XNNPACK_PAYLOAD_CHECK_H_
