#include "cc/kernels/lstm.h"

#include <cmath>

namespace pteforge {
namespace kernels {

namespace {

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void LstmCell(int64_t batch, int64_t hidden_size, const float* input_gates, const float* hidden_gates,
              const float* cell, float* hidden, float* cell_next) {
  for (int64_t b = 0; b < batch; ++b) {
    const float* x = input_gates + b * 4 * hidden_size;
    const float* h = hidden_gates + b * 4 * hidden_size;
    for (int64_t j = 0; j < hidden_size; ++j) {
      const float i = x[j] + h[j];
      const float f = x[hidden_size + j] + h[hidden_size + j];
      const float g = x[2 * hidden_size + j] + h[2 * hidden_size + j];
      const float o = x[3 * hidden_size + j] + h[3 * hidden_size + j];
      const float forget = Sigmoid(f) * cell[b * hidden_size + j];
      const float next = forget + Sigmoid(i) * std::tanh(g);
      cell_next[b * hidden_size + j] = next;
      hidden[b * hidden_size + j] = Sigmoid(o) * std::tanh(next);
    }
  }
}

}  // namespace kernels
}  // namespace pteforge
