#include "cc/text/pre_tokenizer.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "cc/text/byte_level.h"
#include "cc/text/pattern.h"
#include "cc/text/unicode.h"
#include "cc/text/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: pre_tokenizer";

// GPT-2's pattern, which ByteLevel splits with when use_regex is true.
constexpr char kGpt2Pattern[] =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

using Matches = std::vector<std::pair<size_t, size_t>>;

// Every character for which `predicate` holds is a match of its own.
Matches CharacterMatches(const std::string& text, bool (*predicate)(char32_t)) {
  std::vector<size_t> offsets;
  const std::u32string code_points = utf8::Decode(text, &offsets);
  Matches matches;
  for (size_t i = 0; i < code_points.size(); ++i) {
    if (predicate(code_points[i])) matches.emplace_back(offsets[i], offsets[i + 1]);
  }
  return matches;
}

// Splits every piece by the matches `find` gives for it.
template <typename FindMatches>
Status SplitEach(std::vector<PreToken>* pieces, SplitBehavior behavior, FindMatches find, bool invert = false) {
  std::vector<PreToken> out;
  out.reserve(pieces->size());
  for (const PreToken& piece : *pieces) {
    StatusOr<Matches> matches = find(piece.text);
    if (!matches.ok()) return matches.status();
    SplitByMatches(piece, *matches, behavior, invert, &out);
  }
  *pieces = std::move(out);
  return Status();
}

class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, std::optional<Pattern> split_pattern)
      : add_prefix_space_(add_prefix_space), split_pattern_(std::move(split_pattern)) {}

  Status PreTokenize(std::vector<PreToken>* pieces) const override {
    if (add_prefix_space_) {
      for (PreToken& piece : *pieces) {
        if (piece.text[0] != ' ') piece.text.insert(0, " ");
      }
    }
    if (split_pattern_.has_value()) {
      PTEFORGE_RETURN_IF_ERROR(SplitEach(pieces, SplitBehavior::kIsolated, [this](const std::string& text) {
        return split_pattern_->FindMatches(text);
      }));
    }
    for (PreToken& piece : *pieces) piece.text = byte_level::Encode(piece.text);
    return Status();
  }

 private:
  bool add_prefix_space_;
  std::optional<Pattern> split_pattern_;
};

class SplitPreTokenizer : public PreTokenizer {
 public:
  SplitPreTokenizer(Pattern pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}

  Status PreTokenize(std::vector<PreToken>* pieces) const override {
    return SplitEach(
        pieces, behavior_, [this](const std::string& text) { return pattern_.FindMatches(text); }, invert_);
  }

 private:
  Pattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  enum class Prepend { kAlways, kFirst, kNever };
  MetaspacePreTokenizer(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {}

  Status PreTokenize(std::vector<PreToken>* pieces) const override {
    for (PreToken& piece : *pieces) {
      std::string replaced;
      for (char c : piece.text) {
        if (c == ' ') replaced += replacement_;
        else replaced.push_back(c);
      }
      const bool starts_with_replacement = replaced.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts_with_replacement &&
          (prepend_ == Prepend::kAlways || (prepend_ == Prepend::kFirst && piece.at_start))) {
        replaced.insert(0, replacement_);
      }
      piece.text = std::move(replaced);
    }
    if (!split_) return Status();
    return SplitEach(pieces, SplitBehavior::kMergedWithNext, [this](const std::string& text) {
      Matches matches;
      for (size_t at = text.find(replacement_); at != std::string::npos;
           at = text.find(replacement_, at + replacement_.size())) {
        matches.emplace_back(at, at + replacement_.size());
      }
      return StatusOr<Matches>(std::move(matches));
    });
  }

 private:
  std::string replacement_;
  Prepend prepend_;
  bool split_;
};

// Digits and WhitespaceSplit: each character of a kind is a match.
class CharacterClassPreTokenizer : public PreTokenizer {
 public:
  CharacterClassPreTokenizer(bool (*predicate)(char32_t), SplitBehavior behavior)
      : predicate_(predicate), behavior_(behavior) {}
  Status PreTokenize(std::vector<PreToken>* pieces) const override {
    return SplitEach(pieces, behavior_, [this](const std::string& text) {
      return StatusOr<Matches>(CharacterMatches(text, predicate_));
    });
  }

 private:
  bool (*predicate_)(char32_t);
  SplitBehavior behavior_;
};

class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  Status PreTokenize(std::vector<PreToken>* pieces) const override {
    for (const auto& step : steps_) PTEFORGE_RETURN_IF_ERROR(step->PreTokenize(pieces));
    return Status();
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

StatusOr<SplitBehavior> ParseBehavior(const std::string& name, const std::string& where) {
  static const std::pair<const char*, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::kRemoved},
      {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext},
      {"Contiguous", SplitBehavior::kContiguous}};
  for (const auto& [known, behavior] : kNames) {
    if (name == known) return behavior;
  }
  return Failure(Error::NotSupported, "%s: behavior '%s' is unknown (Removed, Isolated, MergedWithPrevious, "
                 "MergedWithNext, Contiguous)", where.c_str(), name.c_str());
}

StatusOr<std::unique_ptr<PreTokenizer>> MakeMetaspace(const Json& config, const std::string& where) {
  std::string replacement, scheme;
  PTEFORGE_RETURN_IF_ERROR(OptionalString(config, "replacement", where, "\xE2\x96\x81", &replacement));
  if (utf8::Decode(replacement).size() != 1) {
    return Failure(Error::InvalidArgument, "%s: 'replacement' must be one character", where.c_str());
  }
  bool add_prefix_space, split;
  PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "add_prefix_space", where, true, &add_prefix_space));
  PTEFORGE_RETURN_IF_ERROR(OptionalString(config, "prepend_scheme", where, add_prefix_space ? "always" : "never",
                                          &scheme));
  PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "split", where, true, &split));
  MetaspacePreTokenizer::Prepend prepend;
  if (scheme == "always") prepend = MetaspacePreTokenizer::Prepend::kAlways;
  else if (scheme == "first") prepend = MetaspacePreTokenizer::Prepend::kFirst;
  else if (scheme == "never") prepend = MetaspacePreTokenizer::Prepend::kNever;
  else return Failure(Error::InvalidArgument, "%s: prepend_scheme '%s' is unknown (always, first, never)",
                      where.c_str(), scheme.c_str());
  return std::unique_ptr<PreTokenizer>(new MetaspacePreTokenizer(replacement, prepend, split));
}

}  // namespace

void SplitByMatches(const PreToken& piece, const std::vector<std::pair<size_t, size_t>>& matches,
                    SplitBehavior behavior, bool invert, std::vector<PreToken>* out) {
  // As tokenizers: the whole text as (range, is_match) parts, then merged per behaviour.
  struct Part {
    size_t begin, end;
    bool is_match;
  };
  std::vector<Part> parts;
  size_t last = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > last) parts.push_back({last, begin, invert});
    parts.push_back({begin, end, !invert});
    last = end;
  }
  if (last < piece.text.size()) parts.push_back({last, piece.text.size(), invert});

  std::vector<Part> merged;  // is_match now means "remove"
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      merged = parts;
      break;
    case SplitBehavior::kIsolated:
      for (Part part : parts) merged.push_back({part.begin, part.end, false});
      break;
    case SplitBehavior::kContiguous:
      for (const Part& part : parts) {
        if (part.is_match == previous_match && !merged.empty()) merged.back().end = part.end;
        else merged.push_back({part.begin, part.end, false});
        previous_match = part.is_match;
      }
      break;
    case SplitBehavior::kMergedWithPrevious:
      for (const Part& part : parts) {
        if (part.is_match && !previous_match && !merged.empty()) merged.back().end = part.end;
        else merged.push_back({part.begin, part.end, false});
        previous_match = part.is_match;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->is_match && !previous_match && !merged.empty()) merged.back().begin = it->begin;
        else merged.push_back({it->begin, it->end, false});
        previous_match = it->is_match;
      }
      std::reverse(merged.begin(), merged.end());
      break;
  }
  for (const Part& part : merged) {
    if (part.is_match || part.end == part.begin) continue;
    out->push_back({piece.text.substr(part.begin, part.end - part.begin), piece.at_start && part.begin == 0});
  }
}

StatusOr<std::unique_ptr<PreTokenizer>> MakePreTokenizer(const Json& config) {
  std::string type;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "type", kWhere, &type));
  const std::string where = std::string(kWhere) + " " + type;
  if (type == "ByteLevel") {
    bool add_prefix_space, use_regex;
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "add_prefix_space", where, true, &add_prefix_space));
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "use_regex", where, true, &use_regex));
    std::optional<Pattern> pattern;
    if (use_regex) {
      StatusOr<Pattern> compiled = Pattern::FromRegex(kGpt2Pattern, where);
      if (!compiled.ok()) return compiled.status();
      pattern = std::move(compiled).value();
    }
    return std::unique_ptr<PreTokenizer>(new ByteLevelPreTokenizer(add_prefix_space, std::move(pattern)));
  }
  if (type == "Split") {
    StatusOr<Pattern> pattern = Pattern::FromConfig(config, where);
    if (!pattern.ok()) return pattern.status();
    std::string behavior_name;
    PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "behavior", where, &behavior_name));
    StatusOr<SplitBehavior> behavior = ParseBehavior(behavior_name, where);
    if (!behavior.ok()) return behavior.status();
    bool invert;
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "invert", where, false, &invert));
    return std::unique_ptr<PreTokenizer>(new SplitPreTokenizer(std::move(pattern).value(), *behavior, invert));
  }
  if (type == "Metaspace") return MakeMetaspace(config, where);
  if (type == "Digits") {
    bool individual;
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "individual_digits", where, false, &individual));
    return std::unique_ptr<PreTokenizer>(new CharacterClassPreTokenizer(
        unicode::IsNumber, individual ? SplitBehavior::kIsolated : SplitBehavior::kContiguous));
  }
  if (type == "WhitespaceSplit") {
    return std::unique_ptr<PreTokenizer>(
        new CharacterClassPreTokenizer(unicode::IsWhiteSpace, SplitBehavior::kRemoved));
  }
  if (type == "Sequence") {
    auto steps = MakeEach(config, "pretokenizers", where, &MakePreTokenizer);
    if (!steps.ok()) return steps.status();
    return std::unique_ptr<PreTokenizer>(new SequencePreTokenizer(std::move(steps).value()));
  }
  return UnsupportedType(kWhere, type, "ByteLevel, Split, Metaspace, Digits, WhitespaceSplit, Sequence");
}

}  // namespace pteforge
