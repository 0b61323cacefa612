// The text `pte_run --list` prints: methods with signatures, constants, state buffers
// and planned memory of an open Session.
#ifndef PTEFORGE_CC_CLI_DESCRIBE_H_
#define PTEFORGE_CC_CLI_DESCRIBE_H_

#include <string>

#include "cc/runtime/session.h"

namespace pteforge {

std::string DescribeSession(Session& session);

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_DESCRIBE_H_
