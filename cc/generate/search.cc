#include "cc/generate/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "cc/generate/log_softmax.h"

namespace pteforge {
namespace {

// transformers' "very large negative" for excluded beams, in float32 as it computes.
constexpr float kExcluded = -1.0e9f;

// Indices of the `k` largest values, largest first; equal values keep index order.
std::vector<int64_t> TopK(const std::vector<float>& values, size_t k) {
  std::vector<int64_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
    return values[a] > values[b] || (values[a] == values[b] && a < b);
  });
  order.resize(k);
  return order;
}

// A scored continuation: `score` at index `index` (beam * vocab + token).
struct Scored {
  float score;
  int64_t index;
  // TopK's order: the larger score first, the lower index among equal ones.
  bool operator<(const Scored& other) const {
    return score > other.score || (score == other.score && index < other.index);
  }
};

// Appends the `k` best of row[v] + offset (index first + v) to `best`, in TopK's order:
// the k best over several rows are among their rows' k best, so beam search finds its
// candidates with one scan of each row instead of sorting beams x vocab indices.
void AppendRowTopK(const float* row, int64_t width, float offset, int64_t first, size_t k,
                   std::vector<Scored>& best) {
  std::vector<Scored> top;  // sorted, at most k
  for (int64_t v = 0; v < width; ++v) {
    const Scored candidate{row[v] + offset, first + v};
    // Later columns lose ties, so a candidate must beat the k-th strictly.
    if (top.size() == k && !(candidate.score > top.back().score)) continue;
    top.insert(std::upper_bound(top.begin(), top.end(), candidate), candidate);
    if (top.size() > k) top.pop_back();
  }
  best.insert(best.end(), top.begin(), top.end());
}

// ForcedBOSTokenLogitsProcessor / ForcedEOSTokenLogitsProcessor: only `token` remains.
void Force(std::vector<float>& log_probs, int64_t vocab, int64_t token) {
  for (size_t row = 0; row < log_probs.size() / vocab; ++row) {
    float* scores = log_probs.data() + row * vocab;
    std::fill(scores, scores + vocab, -std::numeric_limits<float>::infinity());
    scores[token] = 0.0f;
  }
}

// NoBadWordsLogitsProcessor, MinLengthLogitsProcessor, SuppressTokens*: `tokens` get -inf.
void Suppress(std::vector<float>& log_probs, int64_t vocab, const std::vector<int64_t>& tokens) {
  for (size_t row = 0; row < log_probs.size() / vocab; ++row) {
    for (int64_t token : tokens) log_probs[row * vocab + token] = -std::numeric_limits<float>::infinity();
  }
}

// Each row log-softmaxed: the logits beam search scores, and LogitNormalization.
void Renormalize(std::vector<float>& scores, int64_t vocab) {
  for (size_t row = 0; row < scores.size() / vocab; ++row) LogSoftmax(scores.data() + row * vocab, vocab);
}

// The decoder prompt's length: the start token and the prompt tokens.
int64_t PromptLength(const SearchOptions& options) { return 1 + static_cast<int64_t>(options.prompt_tokens.size()); }

// The first position generate()'s SuppressTokensAtBeginLogitsProcessor acts at: after
// the decoder prompt, and after the forced BOS token when there is one (and the prompt
// is the start token alone).
int64_t BeginIndex(const SearchOptions& options) {
  const int64_t prompt = PromptLength(options);
  return prompt > 1 || options.forced_bos_token < 0 ? prompt : prompt + 1;
}

// Whether the options ask for processors that change greedy's choice beyond min_length
// and forced EOS.
bool HasOtherProcessors(const SearchOptions& options) {
  return options.forced_bos_token >= 0 || !options.bad_tokens.empty() || !options.suppress_tokens.empty() ||
         !options.begin_suppress_tokens.empty();
}

// The processors generate applies to a step's scores (beyond what the model's
// decode_step applies itself), in generate's order. Greedy search leaves out the
// renormalization: a log-softmax keeps each row's argmax.
void Process(std::vector<float>& log_probs, int64_t vocab, int64_t length, const SearchOptions& options,
             bool greedy) {
  if (!options.bad_tokens.empty()) Suppress(log_probs, vocab, options.bad_tokens);
  if (length < options.min_length) Suppress(log_probs, vocab, {options.eos_token});
  if (options.forced_bos_token >= 0 && length == 1) Force(log_probs, vocab, options.forced_bos_token);
  if (options.forced_eos && length == options.max_length - 1) Force(log_probs, vocab, options.eos_token);
  if (!options.suppress_tokens.empty()) Suppress(log_probs, vocab, options.suppress_tokens);
  if (!options.begin_suppress_tokens.empty() && length == BeginIndex(options)) {
    Suppress(log_probs, vocab, options.begin_suppress_tokens);
  }
  if (options.renormalize && !greedy) Renormalize(log_probs, vocab);
}

// Greedy's choice for one row: the highest-scoring allowed token, the lowest id among
// equal maxima (as argmax over the whole vocabulary), with min_length and forced_eos
// applied as Process applies them. (With the other processors, Greedy takes the
// argmax of Process's dense scores instead.)
int64_t GreedyToken(const StepScores& scores, size_t row, int64_t length, const SearchOptions& options) {
  if (options.forced_eos && length == options.max_length - 1) return options.eos_token;
  const bool no_eos = length < options.min_length;
  const float* values = scores.values.data() + row * scores.width;
  const std::vector<int32_t>* allowed = scores.row_columns.empty() ? nullptr : scores.row_columns[row];
  const size_t count = allowed ? allowed->size() : static_cast<size_t>(scores.width);
  int64_t best = -1;
  float best_value = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < count; ++i) {
    const int32_t column = allowed ? (*allowed)[i] : static_cast<int32_t>(i);
    const int64_t token = scores.column_ids.empty() ? column : scores.column_ids[column];
    if (no_eos && token == options.eos_token) continue;
    if (best < 0 || values[column] > best_value) {
      best = token;
      best_value = values[column];
    }
  }
  // Every score -inf: the vocabulary-wide argmax is then token 0.
  return best < 0 || best_value == -std::numeric_limits<float>::infinity() ? 0 : best;
}

// Greedy's choice for every row with all of generate's processors (Process), from the
// dense scores.
std::vector<int64_t> ProcessedGreedyTokens(StepScores scores, int64_t vocab, int64_t length,
                                           const SearchOptions& options) {
  std::vector<float> log_probs = std::move(scores).TakeDense(vocab);
  Process(log_probs, vocab, length, options, /*greedy=*/true);
  std::vector<int64_t> tokens;
  for (size_t row = 0; row < log_probs.size() / vocab; ++row) {
    const float* values = log_probs.data() + row * vocab;
    tokens.push_back(std::max_element(values, values + vocab) - values);  // the first maximum
  }
  return tokens;
}

// The generated tokens of a finished sequence: after the decoder prompt, up to </s>,
// included unless it is also the pad token (Bergamot's). A pad token that is not </s>
// ends nothing: a model may generate its pad id (T5's is 0, its start token).
std::vector<int64_t> Trim(const std::vector<int64_t>& sequence, const SearchOptions& options) {
  const int64_t eos = options.eos_token, pad = options.pad_token;
  std::vector<int64_t> out;
  for (size_t i = PromptLength(options); i < sequence.size(); ++i) {
    if (sequence[i] == eos) {
      if (eos != pad) out.push_back(eos);
      break;
    }
    out.push_back(sequence[i]);
  }
  return out;
}

// Steps every row through the decoder prompt but its last token (which the search's
// first step feeds); the scores are not needed.
Status FeedPrompt(Seq2SeqModel& model, const std::vector<int64_t>& prompt, size_t rows) {
  for (size_t position = 0; position + 1 < prompt.size(); ++position) {
    auto scores = model.Step(std::vector<int64_t>(rows, prompt[position]), static_cast<int64_t>(position) + 1);
    if (!scores.ok()) return scores.status();
  }
  return Status();
}

StatusOr<std::vector<std::vector<int64_t>>> Greedy(Seq2SeqModel& model,
                                                   const std::vector<std::vector<int64_t>>& sources,
                                                   const SearchOptions& options) {
  const size_t n = sources.size();
  PTEFORGE_RETURN_IF_ERROR(model.Encode(sources, 1));
  std::vector<int64_t> prompt{options.start_token};
  prompt.insert(prompt.end(), options.prompt_tokens.begin(), options.prompt_tokens.end());
  PTEFORGE_RETURN_IF_ERROR(FeedPrompt(model, prompt, n));
  std::vector<std::vector<int64_t>> sequences(n, prompt);
  // The rows a step advances: all of them, or with KeepRows the unfinished ones only
  // (a finished row's later tokens are padding, dropped at the end).
  std::vector<int64_t> stepped(n);
  std::iota(stepped.begin(), stepped.end(), 0);
  std::vector<bool> unfinished(n, true);
  std::vector<size_t> ends(n, 0);  // a finished row's length
  for (int64_t length = static_cast<int64_t>(prompt.size());; ++length) {
    std::vector<int64_t> last;
    for (int64_t row : stepped) last.push_back(sequences[row].back());
    auto scores = model.Step(last, length);
    if (!scores.ok()) return scores.status();
    std::vector<int64_t> processed;
    if (HasOtherProcessors(options)) {
      processed = ProcessedGreedyTokens(std::move(scores.value()), model.vocab_size(), length, options);
    }
    std::vector<int64_t> still;
    for (size_t i = 0; i < stepped.size(); ++i) {
      const int64_t row = stepped[i];
      const int64_t best = processed.empty() ? GreedyToken(scores.value(), i, length, options) : processed[i];
      int64_t token = unfinished[row] ? best : options.pad_token;
      sequences[row].push_back(token);
      const int64_t limit =
          options.sentence_max_lengths.empty() ? options.max_length : options.sentence_max_lengths[row];
      const bool was_unfinished = unfinished[row];
      unfinished[row] = unfinished[row] && token != options.eos_token && length + 1 < limit;
      if (was_unfinished && !unfinished[row]) ends[row] = sequences[row].size();
      if (unfinished[row]) still.push_back(row);
    }
    if (still.empty()) break;
    if (model.CanKeepRows() && still.size() < stepped.size()) {
      PTEFORGE_RETURN_IF_ERROR(model.KeepRows(still));
      stepped = std::move(still);
    }
  }
  std::vector<std::vector<int64_t>> out;
  for (size_t row = 0; row < n; ++row) {
    sequences[row].resize(ends[row]);
    out.push_back(Trim(sequences[row], options));
  }
  return out;
}

struct Candidate {
  float score;        // accumulated log-probability
  int64_t beam;       // the beam it extends
  std::vector<int64_t> sequence;
  bool hits_stop;     // ends with </s> or reaches max_length
};

StatusOr<std::vector<std::vector<int64_t>>> Beam(Seq2SeqModel& model,
                                                 const std::vector<std::vector<int64_t>>& sources,
                                                 const SearchOptions& options) {
  const size_t batch = sources.size();
  const size_t beams = options.beams;
  const size_t keep = 2 * beams;  // max(2, 1 + number of eos tokens) * beams
  const int64_t vocab = model.vocab_size();
  const int64_t prompt_length = PromptLength(options);
  // generate()'s length penalty for a hypothesis at `length` tokens so far: the length
  // of what follows the prompt once the next token is added.
  const auto penalty = [&](int64_t length) {
    return static_cast<float>(std::pow(static_cast<double>(length + 1 - prompt_length), options.length_penalty));
  };
  PTEFORGE_RETURN_IF_ERROR(model.Encode(sources, static_cast<int>(beams)));

  std::vector<int64_t> initial(options.max_length, options.pad_token);
  initial[0] = options.start_token;
  std::copy(options.prompt_tokens.begin(), options.prompt_tokens.end(), initial.begin() + 1);
  PTEFORGE_RETURN_IF_ERROR(FeedPrompt(model, std::vector<int64_t>(initial.begin(), initial.begin() + prompt_length),
                                      batch * beams));
  std::vector<std::vector<std::vector<int64_t>>> running(batch, std::vector<std::vector<int64_t>>(beams, initial));
  auto finished_sequences = running;
  std::vector<std::vector<float>> running_scores(batch, std::vector<float>(beams, kExcluded));
  for (auto& scores : running_scores) scores[0] = 0.0f;
  std::vector<std::vector<float>> finished_scores(batch, std::vector<float>(beams, kExcluded));
  std::vector<std::vector<bool>> is_finished(batch, std::vector<bool>(beams, false));
  std::vector<bool> can_improve(batch, true);

  for (int64_t length = prompt_length;; ++length) {  // `length` tokens so far (transformers' cur_len)
    std::vector<int64_t> last(batch * beams);
    for (size_t b = 0; b < batch; ++b) {
      for (size_t k = 0; k < beams; ++k) last[b * beams + k] = running[b][k][length - 1];
    }
    auto scores = model.Step(last, length);
    if (!scores.ok()) return scores.status();
    const bool normalized = scores->log_probabilities;
    std::vector<float> log_probs = std::move(scores.value()).TakeDense(vocab);
    if (!normalized) Renormalize(log_probs, vocab);
    Process(log_probs, vocab, length, options, /*greedy=*/false);

    std::vector<int64_t> reorder(batch * beams);
    bool all_hit = true;
    for (size_t b = 0; b < batch; ++b) {
      // Top 2 * beams continuations over all beams of the sentence.
      std::vector<Scored> continuations;
      for (size_t k = 0; k < beams; ++k) {
        AppendRowTopK(log_probs.data() + (b * beams + k) * vocab, vocab, running_scores[b][k],
                      static_cast<int64_t>(k) * vocab, keep, continuations);
      }
      std::sort(continuations.begin(), continuations.end());
      continuations.resize(keep);
      std::vector<Candidate> candidates;
      for (const Scored& top : continuations) {
        Candidate c{top.score, top.index / vocab, running[b][top.index / vocab], false};
        int64_t token = top.index % vocab;
        c.sequence[length] = token;
        c.hits_stop = token == options.eos_token || length + 1 >= options.max_length;
        all_hit = all_hit && c.hits_stop;
        candidates.push_back(std::move(c));
      }
      // The best unfinished continuations run on.
      std::vector<float> running_candidates(keep);
      for (size_t c = 0; c < keep; ++c) {
        running_candidates[c] = candidates[c].score + (candidates[c].hits_stop ? kExcluded : -0.0f);
      }
      std::vector<int64_t> next = TopK(running_candidates, beams);
      for (size_t k = 0; k < beams; ++k) {
        running[b][k] = candidates[next[k]].sequence;
        running_scores[b][k] = running_candidates[next[k]];
        reorder[b * beams + k] = static_cast<int64_t>(b * beams) + candidates[next[k]].beam;
      }
      // Finished continuations among the top `beams` join the finished list if better.
      bool all_finished = std::all_of(is_finished[b].begin(), is_finished[b].end(), [](bool f) { return f; });
      std::vector<float> merged = finished_scores[b];
      for (size_t c = 0; c < keep; ++c) {
        bool just_finished = candidates[c].hits_stop && c < beams;
        float score = candidates[c].score / penalty(length);
        score += (all_finished && options.early_stopping) ? kExcluded : -0.0f;
        score += can_improve[b] ? -0.0f : kExcluded;
        score += just_finished ? -0.0f : kExcluded;
        merged.push_back(score);
      }
      std::vector<std::vector<int64_t>> sequences = finished_sequences[b];
      std::vector<bool> flags = is_finished[b];
      for (size_t c = 0; c < keep; ++c) {
        sequences.push_back(candidates[c].sequence);
        flags.push_back(candidates[c].hits_stop && c < beams);
      }
      std::vector<int64_t> best = TopK(merged, beams);
      for (size_t k = 0; k < beams; ++k) {
        finished_sequences[b][k] = sequences[best[k]];
        finished_scores[b][k] = merged[best[k]];
        is_finished[b][k] = flags[best[k]];
      }
    }
    // Can any sentence still improve on its finished beams? (early_stopping=False heuristic)
    bool improvement = false, all_done = true;
    for (size_t b = 0; b < batch; ++b) {
      // generate(): cur_len (already advanced) minus the prompt.
      float best_possible = running_scores[b][0] / penalty(length);
      float worst = *std::min_element(finished_scores[b].begin(), finished_scores[b].end());
      bool beats = false;
      for (size_t k = 0; k < beams; ++k) beats = beats || best_possible > (is_finished[b][k] ? worst : kExcluded);
      can_improve[b] = can_improve[b] && beats;
      improvement = improvement || can_improve[b];
      all_done = all_done && std::all_of(is_finished[b].begin(), is_finished[b].end(), [](bool f) { return f; });
    }
    bool open_beam = !(all_done && options.early_stopping);
    if (!(improvement && open_beam && !all_hit)) break;
    PTEFORGE_RETURN_IF_ERROR(model.Reorder(reorder));
  }
  std::vector<std::vector<int64_t>> out;
  for (size_t b = 0; b < batch; ++b) out.push_back(Trim(finished_sequences[b][0], options));
  return out;
}

}  // namespace

StatusOr<StepScores> Seq2SeqModel::Prefill(const std::vector<int64_t>&, int64_t, int64_t) {
  return Failure(Error::NotSupported, "this model has no prefill");
}

Status Seq2SeqModel::KeepRows(const std::vector<int64_t>& /*rows*/) {
  return Failure(Error::NotSupported, "this model steps all of its rows");
}

std::vector<float> StepScores::TakeDense(int64_t vocab) && {
  if (column_ids.empty() && row_columns.empty()) return std::move(values);
  const size_t rows = width > 0 ? values.size() / width : 0;
  std::vector<float> dense(rows * vocab, -std::numeric_limits<float>::infinity());
  for (size_t row = 0; row < rows; ++row) {
    const std::vector<int32_t>* allowed = row_columns.empty() ? nullptr : row_columns[row];
    const size_t count = allowed ? allowed->size() : static_cast<size_t>(width);
    for (size_t i = 0; i < count; ++i) {
      const int32_t column = allowed ? (*allowed)[i] : static_cast<int32_t>(i);
      const int64_t token = column_ids.empty() ? column : column_ids[column];
      dense[row * vocab + token] = values[row * width + column];
    }
  }
  return dense;
}

Status CheckFits(const SearchOptions& options, int64_t max_rows, int64_t max_target_length) {
  if (options.beams > max_rows) {
    return Failure(Error::InvalidArgument, "%d beams do not fit: the model decodes at most %lld rows at once",
                   options.beams, static_cast<long long>(max_rows));
  }
  if (options.max_length > max_target_length) {
    return Failure(Error::InvalidArgument, "max_length %lld exceeds the model's limit of %lld tokens",
                   static_cast<long long>(options.max_length), static_cast<long long>(max_target_length));
  }
  return Status();
}

StatusOr<std::vector<std::vector<int64_t>>> Search(Seq2SeqModel& model,
                                                   const std::vector<std::vector<int64_t>>& sources,
                                                   const SearchOptions& options) {
  if (options.beams < 1) return Failure(Error::InvalidArgument, "the number of beams must be at least 1");
  if (options.max_length < 2) return Failure(Error::InvalidArgument, "max_length must be at least 2");
  if (sources.empty()) return std::vector<std::vector<int64_t>>{};
  if (!options.sentence_max_lengths.empty() &&
      (options.beams != 1 || options.sentence_max_lengths.size() != sources.size())) {
    return Failure(Error::InvalidArgument, "per-sentence max lengths need greedy search and one per sentence");
  }
  return options.beams == 1 ? Greedy(model, sources, options) : Beam(model, sources, options);
}

}  // namespace pteforge
