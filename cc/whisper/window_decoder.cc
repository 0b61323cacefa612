#include "cc/whisper/window_decoder.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cc/generate/log_softmax.h"
#include "cc/generate/sampler.h"
#include "cc/whisper/timestamp_rules.h"

namespace pteforge {
namespace {

constexpr float kNever = -std::numeric_limits<float>::infinity();

// softmax(logits)[id] over the whole row, in double.
double Probability(const float* logits, int64_t width, int64_t id) {
  const float top = *std::max_element(logits, logits + width);
  double sum = 0;
  for (int64_t i = 0; i < width; ++i) sum += std::exp(static_cast<double>(logits[i]) - top);
  return std::exp(static_cast<double>(logits[id]) - top) / sum;
}

// What one decode needs beyond the options: the prompt split as CTranslate2 splits it.
struct Plan {
  int64_t start_step = 0;      // prompt tokens fed before the first decoding step
  int64_t sot_index = 0;       // <|startoftranscript|>'s position
  int64_t max_new_tokens = 0;  // decoding steps at most
  bool timestamps = true;
};

StatusOr<Plan> MakePlan(const WhisperTokens& tokens, const std::vector<int64_t>& prompt,
                        const WindowDecodeOptions& options) {
  const auto sot = std::find(prompt.begin(), prompt.end(), tokens.sot);
  if (sot == prompt.end()) return Failure(Error::InvalidArgument, "the decoder prompt has no <|startoftranscript|>");
  Plan plan;
  plan.sot_index = sot - prompt.begin();
  plan.start_step = static_cast<int64_t>(prompt.size()) - 1;
  plan.max_new_tokens = std::min(options.max_length / 2, options.max_length - plan.start_step);
  plan.timestamps = prompt.back() != tokens.no_timestamps;
  if (plan.max_new_tokens < 1) {
    return Failure(Error::InvalidArgument, "a %zu-token decoder prompt leaves no room in %lld positions",
                   prompt.size(), static_cast<long long>(options.max_length));
  }
  return plan;
}

// One decode: the rows' logits each step, processed as CTranslate2 does.
class Decode {
 public:
  Decode(Seq2SeqModel& model, const WhisperTokens& tokens, const std::vector<int64_t>& prompt,
         const WindowDecodeOptions& options, const Plan& plan)
      : model_(model), tokens_(tokens), prompt_(prompt), options_(options), plan_(plan) {}

  // Encodes `rows` rows and feeds them the prompt up to its last token: to the first
  // row alone, then copied to the others; in one prefill call where the program has
  // one (the previous text can be 223 tokens), else a step per token (a step costs
  // less the fewer rows it advances).
  Status Start(int rows) {
    rows_ = rows;
    PTEFORGE_RETURN_IF_ERROR(model_.Encode(std::vector<std::vector<int64_t>>(1), rows));
    const int64_t fed = plan_.start_step;
    if (fed > 1 && model_.CanPrefill()) {
      // The logits wanted are <|startoftranscript|>'s when it is in the prompt.
      const bool sot_fed = plan_.sot_index < fed;
      auto scores = model_.Prefill(std::vector<int64_t>(prompt_.begin(), prompt_.begin() + fed), fed,
                                   sot_fed ? plan_.sot_index : fed - 1);
      if (!scores.ok()) return scores.status();
      if (sot_fed) NoteNoSpeech(scores->values.data());
    } else {
      for (int64_t i = 0; i < fed; ++i) {
        auto scores = model_.Step({prompt_[i]}, i + 1);
        if (!scores.ok()) return scores.status();
        if (i == plan_.sot_index) NoteNoSpeech(scores->values.data());
      }
    }
    if (fed > 0 && rows > 1) return model_.Reorder(std::vector<int64_t>(rows, 0));
    return Status();
  }

  // The next-token log-probabilities of every row at decoding step `step`, `inputs`
  // fed; `generated[row]` is what the row generated so far.
  StatusOr<std::vector<float>> Next(const std::vector<int64_t>& inputs, int64_t step,
                                    const std::vector<std::vector<int64_t>>& generated) {
    auto scores = model_.Step(inputs, plan_.start_step + step + 1);
    if (!scores.ok()) return scores.status();
    std::vector<float> values = std::move(scores->values);
    const int64_t vocab = tokens_.vocab_size;
    if (step == 0 && plan_.sot_index == plan_.start_step) NoteNoSpeech(values.data());
    for (int row = 0; row < rows_; ++row) {
      float* logits = values.data() + row * vocab;
      for (int64_t id : options_.suppress_tokens) logits[id] = kNever;
      if (step == 0) {
        for (int64_t id : options_.suppress_at_begin) logits[id] = kNever;
      }
      if (plan_.timestamps) {
        ApplyTimestampRules(tokens_, generated[row], options_.max_initial_timestamp_index, logits);
      }
      LogSoftmax(logits, vocab);
    }
    return values;
  }

  // Row i takes row rows[i]'s decoder history (beam search's reordering).
  Status Reorder(const std::vector<int64_t>& rows) { return model_.Reorder(rows); }

  double no_speech_prob() const { return no_speech_prob_; }

 private:
  void NoteNoSpeech(const float* logits) {
    if (tokens_.no_speech >= 0) no_speech_prob_ = Probability(logits, tokens_.vocab_size, tokens_.no_speech);
  }

  Seq2SeqModel& model_;
  const WhisperTokens& tokens_;
  const std::vector<int64_t>& prompt_;
  const WindowDecodeOptions& options_;
  const Plan& plan_;
  int rows_ = 0;
  double no_speech_prob_ = 0;
};

struct Hypothesis {
  std::vector<int64_t> tokens;
  float score = 0;  // cumulative log-probability, in float as CTranslate2 sums it
};

// The best hypothesis by score / length^length_penalty (CTranslate2's finalize_result).
WindowResult Best(std::vector<Hypothesis> hypotheses, double length_penalty, double no_speech_prob) {
  auto normalized = [&](const Hypothesis& h) {
    return h.score / std::pow(static_cast<float>(h.tokens.size()), static_cast<float>(length_penalty));
  };
  std::stable_sort(hypotheses.begin(), hypotheses.end(),
                   [&](const Hypothesis& a, const Hypothesis& b) { return normalized(a) > normalized(b); });
  WindowResult result;
  result.tokens = std::move(hypotheses.front().tokens);
  result.cumulative_logprob = hypotheses.front().score;
  result.avg_logprob = result.cumulative_logprob / static_cast<double>(result.tokens.size() + 1);
  result.no_speech_prob = no_speech_prob;
  return result;
}

// Greedy search (temperature 0) or best-of-n sampling: each row on its own until
// <|endoftext|> or the last step.
StatusOr<WindowResult> Sample(Decode& decode, const WhisperTokens& tokens, const std::vector<int64_t>& prompt,
                              const WindowDecodeOptions& options, const Plan& plan) {
  const int rows = options.temperature > 0 ? options.best_of : 1;
  PTEFORGE_RETURN_IF_ERROR(decode.Start(rows));
  SamplingOptions sampling;
  sampling.do_sample = options.temperature > 0;
  sampling.temperature = options.temperature > 0 ? options.temperature : 1.0;
  Sampler sampler(sampling, options.seed);
  std::vector<Hypothesis> hypotheses(rows);
  std::vector<std::vector<int64_t>> generated(rows);
  std::vector<bool> finished(rows, false);
  std::vector<int64_t> inputs(rows, prompt.back());
  std::vector<float> row_scores;
  const int64_t vocab = tokens.vocab_size;
  for (int64_t step = 0; step < plan.max_new_tokens; ++step) {
    auto log_probs = decode.Next(inputs, step, generated);
    if (!log_probs.ok()) return log_probs.status();
    bool alive = false;
    for (int row = 0; row < rows; ++row) {
      if (finished[row]) continue;
      const float* row_log_probs = log_probs->data() + row * vocab;
      int64_t token;
      if (sampling.do_sample) {
        row_scores.assign(row_log_probs, row_log_probs + vocab);
        token = sampler.Next(&row_scores, {});
      } else {
        token = std::max_element(row_log_probs, row_log_probs + vocab) - row_log_probs;
      }
      hypotheses[row].score += row_log_probs[token];
      if (token == tokens.eot || step + 1 == plan.max_new_tokens) {
        finished[row] = true;
        if (token != tokens.eot) hypotheses[row].tokens.push_back(token);
        continue;
      }
      hypotheses[row].tokens.push_back(token);
      generated[row].push_back(token);
      inputs[row] = token;
      alive = true;
    }
    if (!alive) break;
    for (int row = 0; row < rows; ++row) {
      if (finished[row]) inputs[row] = tokens.eot;  // stepped along, ignored
    }
  }
  return Best(std::move(hypotheses), options.length_penalty, decode.no_speech_prob());
}

struct Candidate {
  float score;
  int row;
  int64_t token;
};

// The `count` best (row, token) continuations of the beams, best first.
std::vector<Candidate> TopCandidates(const std::vector<float>& log_probs, const std::vector<float>& beam_scores,
                                     int64_t vocab, size_t count) {
  std::vector<Candidate> best;
  auto worse = [](const Candidate& a, const Candidate& b) { return a.score > b.score; };  // min-heap
  for (size_t row = 0; row < beam_scores.size(); ++row) {
    if (beam_scores[row] == kNever) continue;
    const float* row_log_probs = log_probs.data() + row * vocab;
    for (int64_t token = 0; token < vocab; ++token) {
      const float score = beam_scores[row] + row_log_probs[token];
      if (score == kNever) continue;
      if (best.size() < count) {
        best.push_back({score, static_cast<int>(row), token});
        std::push_heap(best.begin(), best.end(), worse);
      } else if (score > best.front().score) {
        std::pop_heap(best.begin(), best.end(), worse);
        best.back() = {score, static_cast<int>(row), token};
        std::push_heap(best.begin(), best.end(), worse);
      }
    }
  }
  std::sort(best.begin(), best.end(), [](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score > b.score : (a.row != b.row ? a.row < b.row : a.token < b.token);
  });
  return best;
}

// CTranslate2's BeamSearch: 2 x beams candidates a step; a candidate ending in
// <|endoftext|> among the first beams becomes a hypothesis and the next candidate that
// does not end takes its place; done when round(beams x patience) hypotheses have
// finished (a length penalty forbids stopping earlier), or at the last step.
StatusOr<WindowResult> BeamSearch(Decode& decode, const WhisperTokens& tokens, const std::vector<int64_t>& prompt,
                                  const WindowDecodeOptions& options, const Plan& plan) {
  const int beams = options.beam_size;
  const size_t max_hypotheses = static_cast<size_t>(std::lround(beams * options.patience));
  PTEFORGE_RETURN_IF_ERROR(decode.Start(beams));
  std::vector<float> beam_scores(beams, kNever);
  beam_scores[0] = 0;  // the first step expands one beam
  std::vector<std::vector<int64_t>> generated(beams);
  std::vector<int64_t> inputs(beams, prompt.back());
  std::vector<Hypothesis> hypotheses;
  for (int64_t step = 0; step < plan.max_new_tokens; ++step) {
    auto log_probs = decode.Next(inputs, step, generated);
    if (!log_probs.ok()) return log_probs.status();
    const std::vector<Candidate> candidates = TopCandidates(*log_probs, beam_scores, tokens.vocab_size, 2 * beams);
    const bool last_step = step + 1 == plan.max_new_tokens;
    std::vector<int64_t> origins(beams);
    std::vector<std::vector<int64_t>> next_generated(beams);
    size_t secondary = beams;
    for (int k = 0; k < beams && k < static_cast<int>(candidates.size()); ++k) {
      size_t chosen = k;
      const Candidate& candidate = candidates[k];
      if (candidate.token == tokens.eot || last_step) {
        Hypothesis hypothesis{generated[candidate.row], candidate.score};
        if (candidate.token != tokens.eot) hypothesis.tokens.push_back(candidate.token);
        hypotheses.push_back(std::move(hypothesis));
        for (size_t j = secondary; j < candidates.size(); ++j) {
          if (candidates[j].token != tokens.eot) {
            chosen = j;
            secondary = j + 1;
            break;
          }
        }
      }
      const Candidate& kept = candidates[chosen];
      origins[k] = kept.row;
      next_generated[k] = generated[kept.row];
      next_generated[k].push_back(kept.token);
      inputs[k] = kept.token;
      beam_scores[k] = kept.score;
    }
    if (last_step || hypotheses.size() >= max_hypotheses || candidates.empty()) break;
    PTEFORGE_RETURN_IF_ERROR(decode.Reorder(origins));
    generated = std::move(next_generated);
  }
  if (hypotheses.empty()) return Failure(Error::Internal, "beam search ended without a hypothesis");
  return Best(std::move(hypotheses), options.length_penalty, decode.no_speech_prob());
}

}  // namespace

StatusOr<WindowResult> DecodeWindow(Seq2SeqModel& model, const WhisperTokens& tokens,
                                    const std::vector<int64_t>& prompt, const WindowDecodeOptions& options) {
  auto plan = MakePlan(tokens, prompt, options);
  if (!plan.ok()) return plan.status();
  if (options.beam_size < 1 || options.best_of < 1) {
    return Failure(Error::InvalidArgument, "beam_size and best_of must be at least 1");
  }
  Decode decode(model, tokens, prompt, options, plan.value());
  if (options.temperature > 0 || options.beam_size == 1) return Sample(decode, tokens, prompt, options, plan.value());
  return BeamSearch(decode, tokens, prompt, options, plan.value());
}

}  // namespace pteforge
