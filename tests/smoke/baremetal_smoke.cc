// Bare-metal C++ smoke test for the Cortex-M55 (runs under qemu-system-arm, and on
// Linux targets too). Checks what a bare-metal runtime relies on: static constructors
// run before main (the startup code calls __libc_init_array), the FPU is enabled,
// .bss starts zeroed, the heap works, and the exit status reaches the host.
// It computes the smoke model's y = x W^T + b (see export_smoke.py) in plain C++.

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

namespace {

int constructed = 0;

struct MarkConstructed {
  MarkConstructed() { constructed = 42; }
};
MarkConstructed mark_constructed;

int zero_initialized[64];

template <int kIn, int kOut>
void Affine(const float* x, float* y) {
  for (int out = 0; out < kOut; ++out) {
    float sum = static_cast<float>(out);
    for (int k = 0; k < kIn; ++k) sum += x[k] * static_cast<float>(out - k) / 2.0f;
    y[out] = sum;
  }
}

int failures = 0;

void Check(bool ok, const char* what) {
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  if (!ok) ++failures;
}

}  // namespace

int main() {
  Check(constructed == 42, "static constructors ran before main");
  bool all_zero = true;
  for (int value : zero_initialized) all_zero = all_zero && value == 0;
  Check(all_zero, ".bss is zeroed");

  float* x = static_cast<float*>(malloc(4 * sizeof(float)));
  Check(x != nullptr, "malloc from the heap");
  if (x == nullptr) return 1;
  x[0] = 1;
  x[1] = 2;
  x[2] = 3;
  x[3] = 4;
  float y[3];
  Affine<4, 3>(x, y);
  free(x);
  Check(y[0] == -10.0f && y[1] == -4.0f && y[2] == 2.0f, "float affine map (FPU)");
  Check(fabsf(sqrtf(2.0f) * sqrtf(2.0f) - 2.0f) < 1e-6f, "libm sqrtf");

  printf("baremetal_smoke: %s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
