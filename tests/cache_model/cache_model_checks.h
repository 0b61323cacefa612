// The canonical cache model's own test (models/cache_model.py), as its authors wrote it
// in C++: ones in through set_cache, a tensor of zeros given to get_cache holds ones
// afterwards; then the same at partial sizes, up to the [10, 20] cache's full size and
// down to 1 x 1, against a plain C++ array kept alongside.
//
// The same checks run on every target: a Linux program (cache_model_test.cc) and a
// Cortex-M55 image (cache_model_image.cc) each call CheckCacheModel on a Session.
#ifndef PTEFORGE_TESTS_CACHE_MODEL_CACHE_MODEL_CHECKS_H_
#define PTEFORGE_TESTS_CACHE_MODEL_CACHE_MODEL_CHECKS_H_

#include "cc/runtime/session.h"
#include "cc/runtime/status.h"

namespace pteforge {

// Runs the checks on a freshly opened Session of the cache model, printing one line
// per check; the first failure is returned, naming the call and the element.
Status CheckCacheModel(Session& session);

}  // namespace pteforge

#endif  // PTEFORGE_TESTS_CACHE_MODEL_CACHE_MODEL_CHECKS_H_
