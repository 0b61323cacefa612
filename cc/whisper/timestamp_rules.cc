#include "cc/whisper/timestamp_rules.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pteforge {
namespace {

constexpr float kNever = -std::numeric_limits<float>::infinity();

void Disallow(float* logits, int64_t begin, int64_t end) {
  if (begin < end) std::fill(logits + begin, logits + end, kNever);
}

// log(sum(exp(x))) over [begin, end), in double; -inf when every value is.
double LogSumExp(const float* logits, int64_t begin, int64_t end) {
  const float top = *std::max_element(logits + begin, logits + end);
  if (top == kNever) return -std::numeric_limits<double>::infinity();
  double sum = 0;
  for (int64_t i = begin; i < end; ++i) sum += std::exp(static_cast<double>(logits[i]) - top);
  return top + std::log(sum);
}

}  // namespace

void ApplyTimestampRules(const WhisperTokens& tokens, const std::vector<int64_t>& generated,
                         int64_t max_initial_timestamp_index, float* logits) {
  const int64_t first = tokens.timestamp_begin, end = tokens.timestamp_end + 1;
  logits[tokens.no_timestamps] = kNever;
  if (generated.empty()) {
    Disallow(logits, 0, first);
    Disallow(logits, std::min(end, first + max_initial_timestamp_index + 1), end);
    return;
  }
  const int64_t last = generated.back();
  if (tokens.IsTimestamp(last)) {
    const int64_t penultimate = generated.size() >= 2 ? generated[generated.size() - 2] : last;
    if (tokens.IsTimestamp(penultimate)) {  // a pair ended: text or the end next
      Disallow(logits, first, end);
      return;
    }
    Disallow(logits, 0, tokens.eot);  // a segment's end: a later start or the end next
    Disallow(logits, first, last);
  } else {
    for (auto it = generated.rbegin(); it != generated.rend(); ++it) {
      if (tokens.IsTimestamp(*it)) {  // no going back, nor a segment of no length
        Disallow(logits, first, *it + 1);
        break;
      }
    }
  }
  const float text_top = *std::max_element(logits, logits + first);
  if (LogSumExp(logits, first, end) > text_top) Disallow(logits, 0, first);
}

}  // namespace pteforge
