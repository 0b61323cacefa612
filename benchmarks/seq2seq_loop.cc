// seq2seq_loop: generation with an encoder-decoder .pte on pteforge's runtime (the
// Session: the same kernels, XNNPACK and threads as //cc/tools:translate), for
// //benchmarks:seq2seq_bench. Two program designs:
//
//   --design=pteforge  pteforge.seq2seq's program through the product's own model side
//                      and search (TranslationModel, or WhisperModel for Whisper:
//                      cc/generate/search.h, greedy or --beams): encode writes the
//                      cross-attention keys and values into the shared cache once per
//                      source; decode_step returns logits.
//   --design=optimum   transformers' Seq2SeqLMExportableModule as optimum-executorch
//                      lowers it: encoder(input_ids or input_features) -> hidden states,
//                      text_decoder(decoder_input_ids [1, 1], encoder_hidden_states,
//                      cache_position [1]) -> logits [1, 1, vocab], every step taking the
//                      hidden states again and projecting them to cross-attention keys
//                      and values. Greedy only: its static cache has no reorder for beams.
//
//   seq2seq_loop --model=t5.pte --design=pteforge --source_ids="..." --prompt=0 --new_tokens=64 --beams=4
//   seq2seq_loop --model=whisper.pte --design=optimum --features=x.f32 --mel_bins=80
//       --prompt="50258 50259 50359 50363" --new_tokens=64     (one command line)
//
// Exactly --new_tokens tokens are generated after the prompt (no end-of-sequence token
// before: the search's min_length; the optimum loop takes the argmax of each step). The
// prompt is fed one token per decode call. A short warm-up (untimed) runs first. Prints
// the new token ids (the best beam's) on stdout and one JSON line on stderr: encode_ms
// (the encoder call), decode_ms (the decode steps, the prompt's included, and with beams
// the cache reorders and the search), decode_tokens_per_s = new_tokens / decode_ms,
// peak_rss_mb, planned_bytes (the Session's arenas: the largest method's work memory +
// state) and separate_arenas_bytes (one arena per method, ExecuTorch's default).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cc/cli/peak_rss.h"
#include "cc/cli/runtime_tool.h"
#include "cc/generate/token_ids.h"
#include "cc/runtime/session.h"
#include "cc/seq2seq/translation_model.h"
#include "cc/whisper/whisper_model.h"

namespace pteforge {
namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

HostTensor Longs(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  return HostTensor::FromValues(ScalarType::Long, std::move(sizes), values);
}

// The argmax over the last row of a float32 output ([1, vocab] or [1, n, vocab]),
// `excluded` (>= 0: the end-of-sequence token) left out.
StatusOr<int64_t> LastArgmax(const Value& output, int64_t excluded) {
  const auto* scores = std::get_if<HostTensor>(&output);
  if (scores == nullptr || scores->dtype != ScalarType::Float || scores->sizes.empty()) {
    return Failure(Error::InvalidProgram, "the decoder did not return float32 scores");
  }
  const int64_t vocab = scores->sizes.back();
  const float* last = scores->data<float>() + (scores->numel() - vocab);
  int64_t best = excluded == 0 ? 1 : 0;
  for (int64_t v = best + 1; v < vocab; ++v) {
    if (v != excluded && last[v] > last[best]) best = v;
  }
  return best;
}

// One timed generation: the tokens after the prompt and where the time went.
struct Generation {
  std::vector<int64_t> tokens;
  double encode_ms = 0;
  double decode_ms = 0;
};

// Generates `new_tokens` tokens after the prompt, timed.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual StatusOr<Generation> Run(int64_t new_tokens) = 0;
  virtual Session& session() = 0;
};

// pteforge.seq2seq's program through the product's model side and search: exactly
// `new_tokens` tokens (min_length = max_length), greedy or with beams.
class PteforgeEngine : public Engine {
 public:
  // Text: TranslationModel over token ids; speech: WhisperModel over features.
  static StatusOr<std::unique_ptr<PteforgeEngine>> Create(std::unique_ptr<Session> session, const std::string& what,
                                                          HostTensor source, bool speech,
                                                          const std::vector<int64_t>& prompt, int beams) {
    std::unique_ptr<PteforgeEngine> engine(new PteforgeEngine());
    engine->prompt_ = prompt;
    engine->beams_ = beams;
    if (speech) {
      auto model = WhisperModel::Create(std::move(session), what);
      if (!model.ok()) return model.status();
      engine->whisper_ = std::move(model.value());
      engine->features_ = std::vector<float>(source.data<float>(), source.data<float>() + source.numel());
    } else {
      auto model = TranslationModel::Create(std::move(session), what);
      if (!model.ok()) return model.status();
      engine->text_ = std::move(model.value());
      if (prompt != std::vector<int64_t>{engine->text_->info().defaults.start_token}) {
        return Failure(Error::InvalidArgument, "a text program's prompt is its start token %lld",
                       static_cast<long long>(engine->text_->info().defaults.start_token));
      }
      engine->source_ids_ = {std::vector<int64_t>(source.data<int64_t>(), source.data<int64_t>() + source.numel())};
    }
    return engine;
  }

  Session& session() override { return whisper_ ? whisper_->session() : text_->session(); }

  StatusOr<Generation> Run(int64_t new_tokens) override {
    const int64_t length = static_cast<int64_t>(prompt_.size()) + new_tokens;
    Generation result;
    const auto start = Clock::now();
    StatusOr<std::vector<std::vector<int64_t>>> ids = std::vector<std::vector<int64_t>>{};
    if (whisper_) {
      SearchOptions search = whisper_->info().defaults;
      search.beams = beams_;
      search.start_token = prompt_[0];
      search.prompt_tokens.assign(prompt_.begin() + 1, prompt_.end());
      search.max_length = search.min_length = length;
      const double encoded_before = whisper_->stats().encode_ms;
      ids = whisper_->Generate(features_, 1, search);
      result.encode_ms = whisper_->stats().encode_ms - encoded_before;
    } else {
      TranslateOptions options;
      options.beams = beams_;
      options.max_length = options.min_length = length;
      text_->ResetStats();
      ids = text_->Generate(source_ids_, options);
      result.encode_ms = text_->stats().encode_ms;
    }
    if (!ids.ok()) return ids.status();
    // Everything after encode: the steps, the reorders and the search itself.
    result.decode_ms = Milliseconds(start, Clock::now()) - result.encode_ms;
    result.tokens = std::move(ids->at(0));
    return result;
  }

 private:
  PteforgeEngine() = default;

  std::unique_ptr<WhisperModel> whisper_;
  std::unique_ptr<TranslationModel> text_;
  std::vector<float> features_;
  std::vector<std::vector<int64_t>> source_ids_;
  std::vector<int64_t> prompt_;
  int beams_ = 1;
};

// transformers' Seq2SeqLMExportableModule, greedy: the decoder takes the encoder's
// hidden states at every step (kept in `inputs_`, built once: the loop does not copy
// them per step); the prompt one token a step, then the argmax of each step (never the
// end-of-sequence token, as the search's min_length).
class OptimumEngine : public Engine {
 public:
  OptimumEngine(std::unique_ptr<Session> session, HostTensor source, std::vector<int64_t> prompt, int64_t eos)
      : session_(std::move(session)), source_(std::move(source)), prompt_(std::move(prompt)), eos_(eos) {}

  Session& session() override { return *session_; }

  StatusOr<Generation> Run(int64_t new_tokens) override {
    Generation result;
    const auto start = Clock::now();
    PTEFORGE_RETURN_IF_ERROR(Encode());
    const auto encoded = Clock::now();
    int64_t position = 0;
    for (int64_t token : prompt_) {
      auto next = Step(token, position++);
      if (!next.ok()) return next.status();
      if (position == static_cast<int64_t>(prompt_.size())) result.tokens.push_back(next.value());
    }
    while (static_cast<int64_t>(result.tokens.size()) < new_tokens) {
      auto next = Step(result.tokens.back(), position++);
      if (!next.ok()) return next.status();
      result.tokens.push_back(next.value());
    }
    result.encode_ms = Milliseconds(start, encoded);
    result.decode_ms = Milliseconds(encoded, Clock::now());
    return result;
  }

 private:
  Status Encode() {
    auto outputs = session_->Execute("encoder", {source_});
    if (!outputs.ok()) return outputs.status();
    if (outputs->empty() || std::get_if<HostTensor>(&outputs->at(0)) == nullptr) {
      return Failure(Error::InvalidProgram, "the encoder did not return hidden states");
    }
    inputs_.clear();
    inputs_.emplace_back(Longs({1, 1}, {0}));
    inputs_.push_back(std::move(outputs->at(0)));
    inputs_.emplace_back(Longs({1}, {0}));
    return Status();
  }

  StatusOr<int64_t> Step(int64_t token, int64_t position) {
    std::get<HostTensor>(inputs_[0]).mutable_data<int64_t>()[0] = token;
    std::get<HostTensor>(inputs_[2]).mutable_data<int64_t>()[0] = position;
    auto outputs = session_->Execute("text_decoder", inputs_);
    if (!outputs.ok()) return outputs.status();
    return LastArgmax(outputs->at(0), eos_);
  }

  std::unique_ptr<Session> session_;
  HostTensor source_;
  std::vector<int64_t> prompt_;
  int64_t eos_;
  std::vector<Value> inputs_;
};

StatusOr<HostTensor> ReadFeatures(const std::string& path, int64_t mel_bins) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Failure(Error::InvalidArgument, "cannot open --features=%s", path.c_str());
  std::vector<float> values;
  float buffer[4096];
  size_t read;
  while ((read = std::fread(buffer, sizeof(float), 4096, file)) > 0) values.insert(values.end(), buffer, buffer + read);
  std::fclose(file);
  const int64_t count = static_cast<int64_t>(values.size());
  if (count == 0 || count % mel_bins != 0) {
    return Failure(Error::InvalidArgument, "--features=%s: %lld floats, not a multiple of --mel_bins", path.c_str(),
                   static_cast<long long>(count));
  }
  return HostTensor::FromValues(ScalarType::Float, {1, mel_bins, count / mel_bins}, values);
}

int Main(int argc, char** argv) {
  RuntimeTool tool("seq2seq_loop", "--model=x.pte [flags]", /*default_threads=*/1);
  Flags& flags = tool.flags();
  flags.Define("model", "the encoder-decoder .pte");
  flags.Define("design", "pteforge (encode / decode_step) or optimum (encoder / text_decoder)");
  flags.Define("source_ids", "the source's token ids (text models)");
  flags.Define("features", "a file of float32 [mel_bins, frames] input features (speech models)");
  flags.Define("mel_bins", "mel bins of --features", "80");
  flags.Define("prompt", "the decoder prompt's token ids (the start token first)");
  flags.Define("new_tokens", "tokens to generate", "64");
  flags.Define("beams", "beam search with this many beams (--design=pteforge)", "1");
  flags.Define("eos", "--design=optimum: the end-of-sequence token, never taken", "-1");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  const std::string design = flags.Get("design");
  if (design != "pteforge" && design != "optimum") return tool.Fail("--design must be pteforge or optimum");
  auto prompt = ParseTokenIds(flags.Get("prompt"));
  auto new_tokens = flags.GetInt("new_tokens", 1, 1 << 20);
  auto mel_bins = flags.GetInt("mel_bins", 1, 1 << 16);
  auto beams = flags.GetInt("beams", 1, 64);
  auto eos = flags.GetInt("eos", -1, int64_t{1} << 40);
  if (!prompt.ok() || prompt->empty()) return tool.Fail("--prompt is required");
  for (const auto* value : {&new_tokens, &mel_bins, &beams, &eos}) {
    if (!value->ok()) return tool.Fail(value->status());
  }
  if (design == "optimum" && beams.value() != 1) {
    return tool.Fail("--design=optimum is greedy only: its static cache has no reorder for beams");
  }
  const bool speech = flags.IsSet("features");
  HostTensor source;
  if (speech) {
    auto features = ReadFeatures(flags.Get("features"), mel_bins.value());
    if (!features.ok()) return tool.Fail(features.status());
    source = std::move(features.value());
  } else {
    auto ids = ParseTokenIds(flags.Get("source_ids"));
    if (!ids.ok() || ids->empty()) return tool.Fail("--source_ids or --features is required");
    source = Longs({1, static_cast<int64_t>(ids->size())}, ids.value());
  }

  const auto load_start = Clock::now();
  SessionOptions options;
  // XNNPACK packs each weight once per process, whichever methods use it.
  options.share_packed_weights = true;
  auto session = Session::Open(flags.Get("model"), options);
  if (!session.ok()) return tool.Fail(session.status());
  std::unique_ptr<Engine> engine;
  if (design == "pteforge") {
    auto made = PteforgeEngine::Create(std::move(session.value()), flags.Get("model"), source, speech, prompt.value(),
                                       static_cast<int>(beams.value()));
    if (!made.ok()) return tool.Fail(made.status());
    engine = std::move(made.value());
  } else {
    engine = std::make_unique<OptimumEngine>(std::move(session.value()), source, prompt.value(), eos.value());
  }
  const double load_ms = Milliseconds(load_start, Clock::now());

  // Warm-up (first-call allocations and packing), untimed.
  auto warm = engine->Run(2);
  if (!warm.ok()) return tool.Fail(warm.status());
  auto generated = engine->Run(new_tokens.value());
  if (!generated.ok()) return tool.Fail(generated.status());
  const Generation& run = generated.value();
  std::printf("%s\n", FormatTokenIds(run.tokens).c_str());
  const MemoryUsage& memory = engine->session().memory();
  std::fprintf(stderr,
               "{\"design\": \"%s\", \"beams\": %lld, \"prompt_tokens\": %zu, \"new_tokens\": %zu, "
               "\"load_ms\": %.3f, \"encode_ms\": %.3f, \"decode_ms\": %.3f, \"decode_steps\": %zu, "
               "\"decode_tokens_per_s\": %.3f, \"self_peak_rss_mb\": %.1f, \"planned_bytes\": %zu, "
               "\"state_bytes\": %zu, \"separate_arenas_bytes\": %zu}\n",
               design.c_str(), static_cast<long long>(beams.value()), prompt->size(), run.tokens.size(), load_ms,
               run.encode_ms, run.decode_ms, prompt->size() + run.tokens.size() - 1,
               run.tokens.size() / (run.decode_ms / 1e3), PeakRssMegabytes(), memory.total_planned_bytes(),
               memory.state_arena_bytes, memory.separate_arenas_bytes);
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
