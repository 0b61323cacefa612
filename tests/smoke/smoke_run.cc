// Loads the smoke-test .pte with the ExecuTorch runtime, runs `forward` on a fixed
// input and checks the result against y = x W^T + b recomputed here (W[i][j] = (i-j)/2,
// b[i] = i; see export_smoke.py). Exit status 0 means the whole chain works on this
// target: Python export -> .pte -> C++ runtime + kernel library.
//
// Usage: smoke_run <model.pte>

#include <cmath>
#include <cstdio>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/extension/tensor/tensor.h>

namespace {

constexpr int kBatch = 2;
constexpr int kIn = 4;
constexpr int kOut = 3;

float Expected(const std::vector<float>& x, int row, int out) {
  float sum = static_cast<float>(out);
  for (int k = 0; k < kIn; ++k) sum += x[row * kIn + k] * (out - k) / 2.0f;
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <model.pte>\n", argv[0]);
    return 2;
  }
  executorch::extension::Module module(argv[1]);
  std::vector<float> x = {1, 2, 3, 4, -1, 0.5f, 0, 2};
  auto input = executorch::extension::make_tensor_ptr({kBatch, kIn}, x);
  auto result = module.forward(input);
  if (!result.ok()) {
    std::fprintf(stderr, "forward failed: error 0x%x\n", static_cast<int>(result.error()));
    return 1;
  }
  const auto& output = result.get().at(0).toTensor();
  if (output.numel() != kBatch * kOut) {
    std::fprintf(stderr, "expected %d outputs, got %d\n", kBatch * kOut,
                 static_cast<int>(output.numel()));
    return 1;
  }
  const float* y = output.const_data_ptr<float>();
  int mismatches = 0;
  for (int row = 0; row < kBatch; ++row) {
    for (int out = 0; out < kOut; ++out) {
      float want = Expected(x, row, out);
      float got = y[row * kOut + out];
      std::printf("y[%d][%d] = %g (expected %g)\n", row, out, got, want);
      if (std::fabs(got - want) > 1e-5f) ++mismatches;
    }
  }
  if (mismatches != 0) {
    std::fprintf(stderr, "%d values differ\n", mismatches);
    return 1;
  }
  std::printf("smoke_run: OK\n");
  return 0;
}
