// The metadata a pteforge .pte carries in its `pteforge_metadata` constant method:
// the user's methods and constants, the generated state methods, the state buffers
// in get_state order, the inputs each method writes in place, and each input's and
// output's name. The format is defined in python/pteforge/metadata.py. Inputs and
// outputs are flat: a method's tuple, list and dict arguments and results are
// flattened, and each leaf is named by its path (`xs[1]`, `d['a']`, `['h']`).
#ifndef PTEFORGE_CC_RUNTIME_METADATA_H_
#define PTEFORGE_CC_RUNTIME_METADATA_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/runtime/value.h"

namespace pteforge {

inline constexpr char kMetadataMethod[] = "pteforge_metadata";

struct StateEntry {
  std::string name;
  bool shared = false;
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> sizes;
};

// A tensor input of a user method with per-dimension bounds (min == max if static).
struct InputEntry {
  std::string method;
  size_t index = 0;
  ScalarType dtype = ScalarType::Float;
  std::vector<int64_t> min_sizes;
  std::vector<int64_t> max_sizes;
};

// An input a method writes in place (as eager PyTorch writes the caller's tensor): its
// final value is an extra output after the method's own, in the order of these entries.
struct WrittenInput {
  std::string method;
  size_t index = 0;
};

// The name of a flat input or output: its path in the method's arguments (`x`, `xs[1]`)
// or in its result (`[0]`, `['h']`; a method returning one tensor names none).
struct ValueName {
  std::string method;
  bool output = false;
  size_t index = 0;
  std::string name;
};

struct Metadata {
  std::vector<std::string> methods;    // user entry points, registration order
  std::vector<std::string> constants;  // user constant methods
  std::string reset_state;             // empty without state
  std::string get_state;               // empty without state
  std::vector<StateEntry> state;       // get_state order
  std::vector<InputEntry> inputs;      // tensor inputs of user methods
  std::vector<WrittenInput> writes;    // inputs written in place, output order per method
  std::vector<ValueName> names;        // format 3; the treespec lines are for Python only

  // The inputs `method` writes, in the order their values follow its own outputs.
  std::vector<size_t> WrittenInputs(const std::string& method) const;
  // The entry for `method`'s input `index`, or null.
  const InputEntry* FindInput(const std::string& method, size_t index) const;
  // The name of `method`'s flat input or output `index`, or "" if the metadata gives none.
  std::string Name(const std::string& method, bool output, size_t index) const;
};

// Parses metadata text; the error names the malformed line.
StatusOr<Metadata> ParseMetadata(std::string_view text);

}  // namespace pteforge

#endif  // PTEFORGE_CC_RUNTIME_METADATA_H_
