#include "cc/generate/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cc/simd/vectors.h"

namespace pteforge {
namespace {

uint64_t SplitMix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t RotateLeft(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// The first of equal maxima, as std::max_element and torch.argmax: the largest value in
// vector registers, then its first position (a decode step's greedy choice over 49,152
// logits took 2% of a two-thread step with std::max_element's one-at-a-time loop).
// Scores with a NaN take std::max_element's path, whose answer they decide.
int64_t Argmax(const std::vector<float>& scores) {
  using simd::Floats;
  using simd::Ints;
  const int64_t width = static_cast<int64_t>(scores.size());
  const float* values = scores.data();
  float top = -std::numeric_limits<float>::infinity();
  bool nan = false;
  int64_t i = 0;
  if (width >= simd::kLanes) {
    Floats lanes = simd::Load(values);
    Ints nans = lanes != lanes;
    for (i = simd::kLanes; i + simd::kLanes <= width; i += simd::kLanes) {
      const Floats next = simd::Load(values + i);
      lanes = simd::Select(next > lanes, next, lanes);
      nans |= next != next;
    }
    for (int lane = 0; lane < simd::kLanes; ++lane) {
      top = lanes[lane] > top ? lanes[lane] : top;
      nan = nan || nans[lane] != 0;
    }
  }
  for (; i < width; ++i) {
    top = values[i] > top ? values[i] : top;
    nan = nan || values[i] != values[i];
  }
  const auto first = std::find(scores.begin(), scores.end(), top);
  if (nan || first == scores.end()) {
    return static_cast<int64_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
  }
  return static_cast<int64_t>(first - scores.begin());
}

}  // namespace

Status CheckSamplingOptions(const SamplingOptions& options) {
  if (!(options.temperature > 0)) {
    return Failure(Error::InvalidArgument, "temperature %g: must be greater than 0 (greedy: no sampling)",
                   options.temperature);
  }
  if (options.top_k < 0) {
    return Failure(Error::InvalidArgument, "top_k %lld: must be 0 (all tokens) or more",
                   static_cast<long long>(options.top_k));
  }
  if (!(options.top_p > 0 && options.top_p <= 1)) {
    return Failure(Error::InvalidArgument, "top_p %g: must be in (0, 1]", options.top_p);
  }
  if (!(options.repetition_penalty > 0)) {
    return Failure(Error::InvalidArgument, "repetition_penalty %g: must be greater than 0 (1: none)",
                   options.repetition_penalty);
  }
  return Status();
}

Sampler::Sampler(const SamplingOptions& options, uint64_t seed) : options_(options) {
  for (uint64_t& word : state_) word = SplitMix64(&seed);  // xoshiro256**'s recommended seeding
}

double Sampler::Uniform() {
  // xoshiro256** (Blackman and Vigna): the same bits on every platform, unlike the
  // standard library's distributions.
  const uint64_t result = RotateLeft(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = RotateLeft(state_[3], 45);
  return static_cast<double>(result >> 11) * 0x1.0p-53;
}

int64_t Sampler::Next(std::vector<float>* logits, const std::vector<int64_t>& context) {
  std::vector<float>& scores = *logits;
  const int64_t vocab = static_cast<int64_t>(scores.size());
  if (options_.repetition_penalty != 1.0) {
    // Each distinct token once (transformers gathers, then scatters the same value).
    const float penalty = static_cast<float>(options_.repetition_penalty);
    std::vector<int64_t> seen(context.begin(), context.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (int64_t id : seen) {
      if (id < 0 || id >= vocab) continue;
      scores[id] = scores[id] < 0 ? scores[id] * penalty : scores[id] / penalty;
    }
  }
  if (!options_.do_sample) return Argmax(scores);

  // Candidates, most likely first (ties: lower id first, so the order is the same everywhere).
  order_.resize(vocab);
  for (int64_t i = 0; i < vocab; ++i) order_[i] = i;
  auto more_likely = [&scores](int64_t a, int64_t b) {
    return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
  };
  if (options_.top_k > 0 && options_.top_k < vocab) {
    // Every token as likely as the k-th stays (transformers keeps scores >= the k-th's).
    std::nth_element(order_.begin(), order_.begin() + (options_.top_k - 1), order_.end(), more_likely);
    const float kth = scores[order_[options_.top_k - 1]];
    order_.erase(std::partition(order_.begin(), order_.end(), [&](int64_t id) { return scores[id] >= kth; }),
                 order_.end());
  }
  std::sort(order_.begin(), order_.end(), more_likely);
  // Softmax of score / temperature over the candidates.
  const double top = static_cast<double>(scores[order_[0]]) / options_.temperature;
  probabilities_.resize(order_.size());
  double total = 0;
  for (size_t i = 0; i < order_.size(); ++i) {
    probabilities_[i] = std::exp(static_cast<double>(scores[order_[i]]) / options_.temperature - top);
    total += probabilities_[i];
  }
  if (options_.top_p < 1.0) {
    // transformers drops the tokens whose ascending cumulative probability is <= 1 - top_p,
    // i.e. those after which the more likely ones already reach top_p; the first stays.
    double before = 0;
    size_t keep = 0;
    while (keep < order_.size() && (keep == 0 || before < options_.top_p)) before += probabilities_[keep++] / total;
    order_.resize(keep);
    probabilities_.resize(keep);
    total = 0;
    for (double p : probabilities_) total += p;
  }
  double draw = Uniform() * total;
  for (size_t i = 0; i < order_.size(); ++i) {
    draw -= probabilities_[i];
    if (draw < 0) return order_[i];
  }
  return order_.back();  // rounding left a sliver at the end
}

}  // namespace pteforge
