// Opens a .pte with pteforge's Session, lists its methods, and calls them in order with
// tensors filled with one value, printing every output:
//
//   run_methods MODEL [METHOD VALUE SIZES]...      e.g.  set_cache 2 3x8 get_cache 0 4x8
//
// Each call's input is a float32 tensor of SIZES (dimensions joined by "x") filled with
// VALUE; the methods share the program's state, as the eager module's do. Exit status 0
// on success, 1 when the program or a call fails, 2 for bad arguments.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cc/cli/executorch_log.h"
#include "cc/runtime/session.h"
#include "cc/runtime/value.h"

namespace {

bool ParseSizes(const std::string& text, std::vector<int64_t>* sizes) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    char* stop = nullptr;
    long long size = std::strtoll(text.c_str() + start, &stop, 10);
    if (stop != text.c_str() + end || size <= 0) return false;
    sizes->push_back(size);
    start = end + 1;
  }
  return !sizes->empty();
}

void Print(const pteforge::Value& value) {
  if (const auto* tensor = std::get_if<pteforge::HostTensor>(&value)) {
    std::printf("%s =", pteforge::DescribeValue(value).c_str());
    for (int64_t i = 0; i < tensor->numel(); ++i) std::printf(" %.9g", tensor->Get(i));
    std::printf("\n");
  } else if (const auto* integer = std::get_if<int64_t>(&value)) {
    std::printf("int = %lld\n", static_cast<long long>(*integer));
  } else if (const auto* real = std::get_if<double>(&value)) {
    std::printf("float = %.9g\n", *real);
  } else {
    std::printf("%s\n", pteforge::DescribeValue(value).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (argc - 2) % 3 != 0) {
    std::fprintf(stderr, "usage: %s MODEL [METHOD VALUE SIZES]...\n", argv[0]);
    return 2;
  }
  // ExecuTorch's own log lines: its errors only (it logs info lines on every run).
  pteforge::RouteExecutorchLog(/*verbose=*/false);
  auto session = pteforge::Session::Open(argv[1]);
  if (!session.ok()) {
    std::fprintf(stderr, "run_methods: %s\n", session.status().ToString().c_str());
    return 1;
  }
  std::printf("methods:");
  for (const std::string& method : (*session)->methods()) std::printf(" %s", method.c_str());
  std::printf("\n");
  for (int i = 2; i + 2 < argc; i += 3) {
    const std::string method = argv[i];
    char* stop = nullptr;
    const double fill = std::strtod(argv[i + 1], &stop);
    std::vector<int64_t> sizes;
    if (*stop != '\0' || !ParseSizes(argv[i + 2], &sizes)) {
      std::fprintf(stderr, "run_methods: bad call %s %s %s (VALUE: a number, SIZES: e.g. 3x8)\n", argv[i],
                   argv[i + 1], argv[i + 2]);
      return 2;
    }
    pteforge::HostTensor input = pteforge::HostTensor::Zeros(pteforge::ScalarType::Float, sizes);
    for (int64_t k = 0; k < input.numel(); ++k) input.Set(k, fill);
    auto outputs = (*session)->Execute(method, {input});
    if (!outputs.ok()) {
      std::fprintf(stderr, "run_methods: %s: %s\n", method.c_str(), outputs.status().ToString().c_str());
      return 1;
    }
    for (size_t k = 0; k < outputs->size(); ++k) {
      std::printf("%s output %zu: ", method.c_str(), k);
      Print(outputs->at(k));
    }
  }
  return 0;
}
