#include "cc/runtime/metadata.h"

#include <cstdlib>

namespace pteforge {
namespace {

// Format 3 adds `name`, `in_spec` and `out_spec` lines, format 2 `writes` lines;
// programs of formats 1 and 2 are still read.
constexpr std::string_view kHeader = "pteforge-metadata 3";
constexpr std::string_view kHeaderFormat2 = "pteforge-metadata 2";
constexpr std::string_view kHeaderFormat1 = "pteforge-metadata 1";

// Splits as std::getline with `separator` would, without iostreams (whose locale
// machinery is most of a microcontroller image's library code): "" gives nothing and a
// trailing separator no empty last field.
std::vector<std::string> Split(std::string_view text, char separator) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    fields.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return fields;
}

// What follows the `count`-th space of `line` (a field that may hold spaces), or "".
std::string Rest(const std::string& line, size_t count) {
  size_t start = 0;
  for (size_t i = 0; i < count; ++i) {
    start = line.find(' ', start);
    if (start == std::string::npos) return "";
    ++start;
  }
  return line.substr(start);
}

bool ParseSize(const std::string& text, int64_t* size) {
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  *size = value;
  return !text.empty() && *end == '\0' && value >= 0;
}

// "[4,8]" -> {4, 8}; "[]" -> {}; with bounds, "[1..4,8]" -> min {1, 8}, max {4, 8}.
bool ParseShape(const std::string& text, std::vector<int64_t>* min_sizes, std::vector<int64_t>* max_sizes,
                bool allow_bounds) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  for (const std::string& part : Split(std::string_view(text).substr(1, text.size() - 2), ',')) {
    size_t dots = part.find("..");
    int64_t low, high;
    if (dots == std::string::npos) {
      if (!ParseSize(part, &low)) return false;
      high = low;
    } else if (!allow_bounds || !ParseSize(part.substr(0, dots), &low) || !ParseSize(part.substr(dots + 2), &high) ||
               low > high) {
      return false;
    }
    min_sizes->push_back(low);
    max_sizes->push_back(high);
  }
  return true;
}

}  // namespace

StatusOr<Metadata> ParseMetadata(std::string_view text) {
  std::vector<std::string> lines = Split(text, '\n');
  std::string line = lines.empty() ? "" : lines[0];
  if (line != kHeader && line != kHeaderFormat2 && line != kHeaderFormat1) {
    return Failure(Error::NotSupported,
                   "the program's metadata is not pteforge metadata format 1, 2 or 3 (first line '%s'); "
                   "re-export the model with this pteforge version",
                   line.c_str());
  }
  Metadata metadata;
  for (size_t number = 2; number <= lines.size(); ++number) {
    line = lines[number - 1];
    std::vector<std::string> fields = Split(line, ' ');
    const std::string kind = fields.empty() ? "" : fields[0];
    bool ok = true;
    if (fields.size() == 2 && kind == "method") {
      metadata.methods.push_back(fields[1]);
    } else if (fields.size() == 2 && kind == "constant") {
      metadata.constants.push_back(fields[1]);
    } else if (fields.size() == 2 && kind == "reset_state") {
      metadata.reset_state = fields[1];
    } else if (fields.size() == 2 && kind == "get_state") {
      metadata.get_state = fields[1];
    } else if (fields.size() == 5 && kind == "state") {
      StateEntry entry;
      entry.name = fields[1];
      entry.shared = fields[2] == "shared";
      std::vector<int64_t> unused;
      ok = (fields[2] == "shared" || fields[2] == "private") && ParseDType(fields[3], &entry.dtype) &&
           ParseShape(fields[4], &unused, &entry.sizes, /*allow_bounds=*/false);
      if (ok) metadata.state.push_back(std::move(entry));
    } else if (fields.size() == 5 && kind == "input") {
      InputEntry entry;
      entry.method = fields[1];
      int64_t index;
      ok = ParseSize(fields[2], &index) && ParseDType(fields[3], &entry.dtype) &&
           ParseShape(fields[4], &entry.min_sizes, &entry.max_sizes, /*allow_bounds=*/true);
      entry.index = static_cast<size_t>(index);
      if (ok) metadata.inputs.push_back(std::move(entry));
    } else if (fields.size() == 3 && kind == "writes") {
      int64_t index = 0;
      ok = ParseSize(fields[2], &index);
      if (ok) metadata.writes.push_back(WrittenInput{fields[1], static_cast<size_t>(index)});
    } else if (fields.size() >= 5 && kind == "name") {
      int64_t index = 0;
      ValueName entry{fields[1], fields[2] == "output", 0, Rest(line, 4)};
      ok = (fields[2] == "input" || fields[2] == "output") && ParseSize(fields[3], &index) && !entry.name.empty();
      entry.index = static_cast<size_t>(index);
      if (ok) metadata.names.push_back(std::move(entry));
    } else if (fields.size() >= 3 && (kind == "in_spec" || kind == "out_spec")) {
      ok = !fields[1].empty();  // a torch.utils._pytree treespec, which only Python reads
    } else {
      ok = false;
    }
    if (!ok) {
      return Failure(Error::InvalidProgram, "pteforge metadata line %zu is malformed: '%s'", number,
                     line.c_str());
    }
  }
  return metadata;
}

std::vector<size_t> Metadata::WrittenInputs(const std::string& method) const {
  std::vector<size_t> written;
  for (const auto& entry : writes) {
    if (entry.method == method) written.push_back(entry.index);
  }
  return written;
}

const InputEntry* Metadata::FindInput(const std::string& method, size_t index) const {
  for (const auto& entry : inputs) {
    if (entry.method == method && entry.index == index) return &entry;
  }
  return nullptr;
}

std::string Metadata::Name(const std::string& method, bool output, size_t index) const {
  for (const auto& entry : names) {
    if (entry.method == method && entry.output == output && entry.index == index) return entry.name;
  }
  return "";
}

}  // namespace pteforge
