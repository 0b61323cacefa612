#include "cc/cli/describe.h"

#include <algorithm>

#include "cc/cli/format.h"

namespace pteforge {
namespace {

std::string Join(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

std::string Pad(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

// `name: float32[4, 8]` where the metadata names the value (an argument, or an element
// of a structured result), the type alone otherwise and for the elements of a plain
// tuple (`[0]`, `[1]`: their position says as much).
std::string Named(const ValueSpec& spec) {
  const std::string& name = spec.name;
  bool position = name.size() > 2 && name.front() == '[' && name.back() == ']' &&
                  name.find_first_not_of("0123456789", 1) == name.size() - 1;
  return name.empty() || position ? FormatSpec(spec) : name + ": " + FormatSpec(spec);
}

}  // namespace

std::string DescribeSession(Session& session) {
  std::string out = "methods:\n";
  for (const auto& name : session.methods()) {
    auto signature = session.Signature(name);
    if (!signature.ok()) continue;
    std::vector<std::string> inputs, outputs;
    for (const auto& spec : signature->inputs) inputs.push_back(Named(spec));
    for (const auto& spec : signature->outputs) outputs.push_back(Named(spec));
    out += "  " + name + "(" + Join(inputs) + ") -> (" + Join(outputs) + ")\n";
  }
  if (!session.constants().empty()) {
    out += "constants:\n";
    for (const auto& name : session.constants()) {
      auto value = session.Execute(name, {});
      out += "  " + name + " = " + (value.ok() && value->size() == 1 ? FormatValue(value->at(0), 8) : "?") + "\n";
    }
  }
  if (!session.state().empty()) {
    size_t width = 0;
    for (const auto& buffer : session.state()) width = std::max(width, buffer.name.size());
    out += "state (one copy, shared by every method that uses it):\n";
    for (const auto& buffer : session.state()) {
      HostTensor shape = HostTensor::Zeros(buffer.dtype, buffer.sizes);
      out += "  " + Pad(buffer.name, width) + "  " + (buffer.shared ? "shared " : "private") + "  " +
             Pad(DescribeValue(Value(shape)), 16) + "  " + FormatBytes(buffer.nbytes) + " at offset " +
             std::to_string(buffer.offset) + "\n";
    }
  }
  std::vector<std::string> generated;
  for (const auto& name : session.all_methods()) {
    bool user = std::find(session.methods().begin(), session.methods().end(), name) != session.methods().end() ||
                std::find(session.constants().begin(), session.constants().end(), name) != session.constants().end();
    if (!user) generated.push_back(name);
  }
  if (!generated.empty()) out += "generated methods: " + Join(generated) + "\n";
  const MemoryUsage& memory = session.memory();
  out += "planned memory:\n";
  out += "  state arena  " + FormatBytes(memory.state_arena_bytes) + "\n";
  out += "  work arena   " + FormatBytes(memory.work_arena_bytes) + " (one, reused by every method)\n";
  out += "  total        " + FormatBytes(memory.total_planned_bytes()) + " (one arena per method would need " +
         FormatBytes(memory.separate_arenas_bytes) + ")\n";
  return out;
}

}  // namespace pteforge
