#include "cc/text/regex.h"

#include "cc/text/regex_syntax.h"

namespace pteforge {
namespace {

using regex_syntax::Node;
using regex_syntax::Sequence;

// Iterations of a repeated group are matched by recursion (a few hundred bytes of stack
// each); past this many the match stops with an error instead of risking the stack of a
// small thread. Quantified single characters (\p{L}+) loop and have no such limit.
constexpr int kMaxGroupRepetitions = 1000;

// What to match after the current sequence ends: the rest of an enclosing sequence,
// or another iteration of a repeated group. A linked list on the stack.
struct Continuation {
  const Sequence* sequence;
  size_t index;
  const Continuation* next;
  // For a repeated group: the group, its iteration count and where the iteration began.
  const Node* repeat = nullptr;
  int count = 0;
  size_t iteration_start = 0;
};

class Matcher {
 public:
  explicit Matcher(std::u32string_view text) : text_(text) {}

  // Matches `alternatives` at `start`; the end of the match in *end.
  bool MatchAt(const std::vector<Sequence>& alternatives, size_t start, size_t* end) {
    for (const Sequence& alternative : alternatives) {
      if (MatchSequence(alternative, 0, start, nullptr)) {
        *end = end_;
        return true;
      }
    }
    return false;
  }

  bool too_deep() const { return too_deep_; }

 private:
  bool Continue(size_t pos, const Continuation* k) {
    if (k == nullptr) {
      end_ = pos;
      return true;
    }
    if (k->repeat != nullptr) return MatchRepeat(*k->repeat, k->count, k->iteration_start, pos, *k->next);
    return MatchSequence(*k->sequence, k->index, pos, k->next);
  }

  bool MatchAlternatives(const std::vector<Sequence>& alternatives, size_t pos, const Continuation* k) {
    for (const Sequence& alternative : alternatives) {
      if (MatchSequence(alternative, 0, pos, k)) return true;
    }
    return false;
  }

  // `count` iterations of `group` are done, the last one from `iteration_start` to
  // `pos`; then `after` (the rest of the enclosing sequence).
  bool MatchRepeat(const Node& group, int count, size_t iteration_start, size_t pos,
                   const Continuation& after) {
    // Counted over all repeated groups at once: nested ones multiply.
    if (repeat_depth_ >= kMaxGroupRepetitions) {
      too_deep_ = true;
      return false;
    }
    ++repeat_depth_;
    const bool matched = MatchRepeatIteration(group, count, iteration_start, pos, after);
    --repeat_depth_;
    return matched;
  }

  bool MatchRepeatIteration(const Node& group, int count, size_t iteration_start, size_t pos,
                            const Continuation& after) {
    // An empty iteration past the minimum would loop forever: stop repeating.
    const bool may_repeat = count < group.max && !(count > group.min && pos == iteration_start);
    const Continuation again{nullptr, 0, &after, &group, count + 1, pos};
    if (group.greedy) {
      if (may_repeat && MatchAlternatives(group.alternatives, pos, &again)) return true;
      return count >= group.min && Continue(pos, &after);
    }
    if (count >= group.min && Continue(pos, &after)) return true;
    return may_repeat && MatchAlternatives(group.alternatives, pos, &again);
  }

  bool MatchSequence(const Sequence& sequence, size_t index, size_t pos, const Continuation* k) {
    if (too_deep_) return false;
    if (index == sequence.size()) return Continue(pos, k);
    const Node& node = sequence[index];
    const Continuation rest{&sequence, index + 1, k};
    switch (node.kind) {
      case Node::Kind::kChar: {
        size_t available = 0;
        while (available < static_cast<size_t>(node.max) && pos + available < text_.size() &&
               node.set.Matches(text_[pos + available])) {
          ++available;
        }
        const size_t min = static_cast<size_t>(node.min);
        if (available < min) return false;
        if (node.greedy) {
          for (size_t n = available + 1; n-- > min;) {
            if (MatchSequence(sequence, index + 1, pos + n, k)) return true;
          }
        } else {
          for (size_t n = min; n <= available; ++n) {
            if (MatchSequence(sequence, index + 1, pos + n, k)) return true;
          }
        }
        return false;
      }
      case Node::Kind::kGroup:
        if (node.min == 1 && node.max == 1) return MatchAlternatives(node.alternatives, pos, &rest);
        return MatchRepeat(node, 0, pos, pos, rest);
      case Node::Kind::kLookahead:
      case Node::Kind::kNegativeLookahead: {
        const size_t saved_end = end_;
        const bool found = MatchAlternatives(node.alternatives, pos, nullptr);
        end_ = saved_end;
        if (found != (node.kind == Node::Kind::kLookahead)) return false;
        return MatchSequence(sequence, index + 1, pos, k);
      }
    }
    return false;
  }

  std::u32string_view text_;
  size_t end_ = 0;
  int repeat_depth_ = 0;
  bool too_deep_ = false;
};

}  // namespace

StatusOr<Regex> Regex::Compile(std::string_view pattern) {
  auto alternatives = std::make_shared<std::vector<Sequence>>();
  PTEFORGE_RETURN_IF_ERROR(regex_syntax::Parse(pattern, alternatives.get()));
  Regex regex;
  regex.pattern_ = std::string(pattern);
  regex.alternatives_ = std::move(alternatives);
  return regex;
}

StatusOr<std::vector<std::pair<size_t, size_t>>> Regex::FindAll(std::u32string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  Matcher matcher(text);
  size_t start = 0;
  bool previous_ended_here = false;  // the last match was not empty and ended at `start`
  while (start <= text.size()) {
    size_t end = 0;
    if (matcher.MatchAt(*alternatives_, start, &end)) {
      if (end == start && previous_ended_here) {
        previous_ended_here = false;  // no empty match right after a match
        ++start;
        continue;
      }
      matches.emplace_back(start, end);
      previous_ended_here = end > start;
      start = end > start ? end : start + 1;
      continue;
    }
    if (matcher.too_deep()) {
      return Failure(Error::InvalidArgument,
                     "regex '%s': a repeated group went past %d iterations on this text",
                     pattern_.c_str(), kMaxGroupRepetitions);
    }
    previous_ended_here = false;
    ++start;
  }
  return matches;
}

}  // namespace pteforge