#include "cc/text/regex.h"

#include <algorithm>
#include <climits>
#include <mutex>

#include <oniguruma.h>

#include "cc/text/utf8.h"

namespace pteforge {
namespace {

// Oniguruma's own default for one match attempt, applied to a whole search too (whose
// default is no limit): bounded time on hostile patterns, far beyond what the patterns
// of real tokenizers take (a few steps per match).
constexpr unsigned long kRetryLimit = 10000000;
// Nesting in a pattern is parsed by recursion: Oniguruma's default of 4096 levels could
// take a small thread's stack; real patterns nest a few levels.
constexpr unsigned int kParseDepthLimit = 256;

// Oniguruma's global setup, once: the UTF-8 encoding and the parse depth. onig_new
// itself is not thread-safe (the onig crate takes a lock around it too).
std::mutex& CompileLock() {
  static std::mutex* lock = [] {
    OnigEncoding encodings[] = {ONIG_ENCODING_UTF8};
    onig_initialize(encodings, 1);
    onig_set_parse_depth_limit(kParseDepthLimit);
    return new std::mutex;
  }();
  return *lock;
}

std::string ErrorText(int code, OnigErrorInfo* info = nullptr) {
  OnigUChar message[ONIG_MAX_ERROR_MESSAGE_LEN];
  const int length = onig_error_code_to_str(message, code, info);
  return std::string(reinterpret_cast<const char*>(message), length > 0 ? length : 0);
}

struct RegionDeleter {
  void operator()(OnigRegion* region) const { onig_region_free(region, /*free_self=*/1); }
};
struct MatchParamDeleter {
  void operator()(OnigMatchParam* param) const { onig_free_match_param(param); }
};

}  // namespace

StatusOr<Regex> Regex::Compile(std::string_view pattern) {
  OnigRegex compiled = nullptr;
  OnigErrorInfo info{};
  int result;
  {
    std::lock_guard<std::mutex> hold(CompileLock());
    const auto* begin = reinterpret_cast<const OnigUChar*>(pattern.data());
    result = onig_new(&compiled, begin, begin + pattern.size(), ONIG_OPTION_NONE, ONIG_ENCODING_UTF8,
                      ONIG_SYNTAX_DEFAULT, &info);
  }
  if (result != ONIG_NORMAL) {
    return Failure(Error::NotSupported, "regex '%.*s': %s", static_cast<int>(pattern.size()), pattern.data(),
                   ErrorText(result, &info).c_str());
  }
  Regex regex;
  regex.pattern_ = std::string(pattern);
  regex.compiled_ = std::shared_ptr<re_pattern_buffer>(compiled, onig_free);
  return regex;
}

StatusOr<std::vector<std::pair<size_t, size_t>>> Regex::FindAll(std::string_view text) const {
  if (text.size() > INT_MAX) {  // Oniguruma's offsets are ints
    return Failure(Error::InvalidArgument, "regex '%s': a text of %zu bytes is too long (at most %d)",
                   pattern_.c_str(), text.size(), INT_MAX);
  }
  std::unique_ptr<OnigRegion, RegionDeleter> region(onig_region_new());
  std::unique_ptr<OnigMatchParam, MatchParamDeleter> param(onig_new_match_param());
  if (region == nullptr || param == nullptr) {
    return Failure(Error::MemoryAllocationFailed, "regex '%s': out of memory", pattern_.c_str());
  }
  onig_initialize_match_param(param.get());
  onig_set_retry_limit_in_match_of_match_param(param.get(), kRetryLimit);
  onig_set_retry_limit_in_search_of_match_param(param.get(), kRetryLimit);

  const auto* begin = reinterpret_cast<const OnigUChar*>(text.data());
  const OnigUChar* end = begin + text.size();
  std::vector<std::pair<size_t, size_t>> matches;
  size_t search_from = 0;
  bool matched_before = false;
  size_t last_match_end = 0;
  while (search_from <= text.size()) {
    const int found = onig_search_with_param(compiled_.get(), begin, end, begin + search_from, end, region.get(),
                                             ONIG_OPTION_NONE, param.get());
    if (found == ONIG_MISMATCH) break;
    if (found < 0) {
      return Failure(Error::InvalidArgument, "regex '%s': %s (at byte %zu of a %zu-byte text)", pattern_.c_str(),
                     ErrorText(found).c_str(), search_from, text.size());
    }
    const auto match_begin = static_cast<size_t>(region->beg[0]);
    const auto match_end = static_cast<size_t>(region->end[0]);
    if (match_begin == match_end && matched_before && last_match_end == match_end) {
      // An empty match where the last one ended: move on by one character (by a byte
      // where the text is not UTF-8, which callers rule out, rather than not at all).
      const size_t step = search_from < text.size() ? utf8::SequenceLength(text, search_from) : 1;
      search_from += std::max<size_t>(step, 1);
      continue;
    }
    matches.emplace_back(match_begin, match_end);
    search_from = match_end;
    matched_before = true;
    last_match_end = match_end;
  }
  return matches;
}

}  // namespace pteforge
