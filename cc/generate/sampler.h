// Sampler: the next token from a language model's logits, as transformers' generate()
// picks it: the repetition penalty, then greedy (argmax), or temperature, top-k and
// top-p followed by a draw from the remaining probabilities.
//
// Draws come from a seeded xoshiro256** generator and the arithmetic is done in
// double in a fixed order, so a seed gives the same tokens on every target for the
// same logits (transformers' own draws come from torch's generator: its sampled tokens
// are not reproduced, only its greedy ones). No allocation per call beyond the working
// vectors it keeps. Not thread-safe; runs on every target, the Cortex-M55 included.
#ifndef PTEFORGE_CC_GENERATE_SAMPLER_H_
#define PTEFORGE_CC_GENERATE_SAMPLER_H_

#include <cstdint>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

struct SamplingOptions {
  bool do_sample = false;           // false: greedy
  double temperature = 1.0;         // > 0; sampling only
  int64_t top_k = 0;                // keep the k most likely tokens (0: all); sampling only
  double top_p = 1.0;               // keep the smallest set with this much probability; sampling only
  double repetition_penalty = 1.0;  // > 0; 1: none. Also applies to greedy, as in transformers
};

// Checks the options' ranges; the message names the flag-like field.
Status CheckSamplingOptions(const SamplingOptions& options);

class Sampler {
 public:
  Sampler(const SamplingOptions& options, uint64_t seed);

  // The next token for `logits` (one per vocabulary entry; changed in place by the
  // penalty and the temperature). `context` holds the tokens seen so far (prompt and
  // generated), which the repetition penalty discounts.
  int64_t Next(std::vector<float>* logits, const std::vector<int64_t>& context);

 private:
  double Uniform();  // in [0, 1), 53 random bits

  SamplingOptions options_;
  uint64_t state_[4];
  std::vector<int64_t> order_;         // candidate ids, most likely first
  std::vector<double> probabilities_;  // of order_, normalized
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_GENERATE_SAMPLER_H_
