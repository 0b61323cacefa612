// libFuzzer target: arbitrary bytes as a .pte, then arbitrary calls through a Session.
//
// Input layout: a little-endian uint32 N, N bytes of program, then the call script.
// Each script step takes bytes to choose an operation (execute a method, read or
// write a state buffer, reset), a method or buffer, and input values: half the time
// shaped from the method's signature (so calls get past validation and run), half
// the time arbitrary (to exercise validation). Tensors stay small (<= 8 per dim).
// Anything the Session refuses is fine; a crash, a sanitizer report, a leak or a hang
// is a bug.

#include <cstdint>
#include <cstring>
#include <vector>

#include "cc/runtime/session.h"

namespace pteforge {
namespace {

class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t Next() { return pos_ < size_ ? data_[pos_++] : 0; }
  void Fill(uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = Next();
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

constexpr ScalarType kDTypes[] = {ScalarType::Float, ScalarType::Long, ScalarType::Int, ScalarType::Bool,
                                  ScalarType::Byte, ScalarType::Double};

HostTensor MakeTensor(Bytes& bytes, ScalarType dtype, const std::vector<int64_t>& sizes) {
  HostTensor tensor = HostTensor::Zeros(dtype, sizes);
  bytes.Fill(tensor.bytes.data(), tensor.bytes.size());
  if (dtype == ScalarType::Bool) {
    for (auto& byte : tensor.bytes) byte &= 1;  // a bool byte other than 0/1 is UB
  }
  return tensor;
}

Value ArbitraryValue(Bytes& bytes) {
  switch (bytes.Next() % 5) {
    case 0: return Value(static_cast<int64_t>(bytes.Next()) - 128);
    case 1: return Value(static_cast<double>(bytes.Next()) / 7.0);
    case 2: return Value(bytes.Next() % 2 == 0);
    default: {
      ScalarType dtype = kDTypes[bytes.Next() % (sizeof(kDTypes) / sizeof(kDTypes[0]))];
      std::vector<int64_t> sizes(bytes.Next() % 4);
      for (auto& size : sizes) size = bytes.Next() % 9;
      return Value(MakeTensor(bytes, dtype, sizes));
    }
  }
}

Value ShapedValue(Bytes& bytes, const ValueSpec& spec) {
  using executorch::runtime::Tag;
  if (spec.tag != Tag::Tensor) return ArbitraryValue(bytes);
  std::vector<int64_t> sizes = spec.max_sizes;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (spec.dynamic[d]) {
      int64_t span = spec.max_sizes[d] - spec.min_sizes[d] + 1;
      sizes[d] = spec.min_sizes[d] + (span > 0 ? bytes.Next() % span : 0);
    }
  }
  int64_t numel = 1;
  for (int64_t size : sizes) numel *= size;
  if (numel > 4096) return ArbitraryValue(bytes);  // keep each run fast
  return Value(MakeTensor(bytes, spec.dtype, sizes));
}

void RunScript(Session& session, Bytes& bytes) {
  const auto& methods = session.all_methods();
  for (int step = 0; step < 16 && !bytes.empty(); ++step) {
    uint8_t op = bytes.Next() % 8;
    if (op < 5 && !methods.empty()) {
      const std::string& method = methods[bytes.Next() % methods.size()];
      std::vector<Value> inputs;
      auto signature = session.Signature(method);
      if (op < 3 && signature.ok()) {
        for (const auto& spec : signature->inputs) inputs.push_back(ShapedValue(bytes, spec));
      } else {
        for (int i = bytes.Next() % 4; i > 0; --i) inputs.push_back(ArbitraryValue(bytes));
      }
      (void)session.Execute(method, inputs);
    } else if (op == 5 && !session.state().empty()) {
      (void)session.ReadState(session.state()[bytes.Next() % session.state().size()].name);
    } else if (op == 6 && !session.state().empty()) {
      const StateBuffer& buffer = session.state()[bytes.Next() % session.state().size()];
      bool well_formed = bytes.Next() % 2 == 0;
      std::vector<int64_t> sizes = well_formed ? buffer.sizes : std::vector<int64_t>{bytes.Next() % 9};
      (void)session.WriteState(buffer.name, MakeTensor(bytes, buffer.dtype, sizes));
    } else {
      (void)session.ResetState();
    }
  }
}

}  // namespace
}  // namespace pteforge

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t length;
  std::memcpy(&length, data, 4);
  size_t program_size = std::min<size_t>(length, size - 4);
  if (program_size == 0) return 0;
  // A copy: the runtime expects the program at an aligned address, as a file mapping is.
  std::vector<uint64_t> program((program_size + 7) / 8);
  std::memcpy(program.data(), data + 4, program_size);
  pteforge::SessionOptions options;
  options.max_planned_bytes = 64 << 20;  // the seeds need kilobytes; stay within -rss_limit_mb
  auto session = pteforge::Session::OpenBuffer(program.data(), program_size, options);
  if (!session.ok()) return 0;
  pteforge::Bytes script(data + 4 + program_size, size - 4 - program_size);
  pteforge::RunScript(*session.value(), script);
  return 0;
}
