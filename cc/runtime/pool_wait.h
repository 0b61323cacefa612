// Internal to the wheel's thread pool (threads.cc and pool_wait.cc): threads.h has the
// public calls.
#ifndef PTEFORGE_CC_RUNTIME_POOL_WAIT_H_
#define PTEFORGE_CC_RUNTIME_POOL_WAIT_H_

#include <cstdint>

namespace pteforge {

// The pool's size, for SetPoolSpin's rule of no watching on more threads than CPUs.
void NotePoolSize(uint32_t threads);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_POOL_WAIT_H_
