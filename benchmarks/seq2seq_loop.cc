// seq2seq_loop: greedy generation with an encoder-decoder .pte on pteforge's runtime (the
// Session: the same kernels, XNNPACK and threads as //cc/tools:translate), for
// //benchmarks:seq2seq_bench. Two program designs:
//
//   --design=pteforge  pteforge.seq2seq's program: encode(input_ids, attention_mask, rows)
//                      (Whisper: encode(input_features, rows)) writes the cross-attention
//                      keys and values into the shared cache once; decode_step(tokens,
//                      encoder_attention_mask, decoder_attention_mask) (Whisper: tokens,
//                      decoder_attention_mask) returns log-probabilities [1, vocab].
//   --design=optimum   transformers' Seq2SeqLMExportableModule as optimum-executorch
//                      lowers it: encoder(input_ids or input_features) -> hidden states,
//                      text_decoder(decoder_input_ids [1, 1], encoder_hidden_states,
//                      cache_position [1]) -> logits [1, 1, vocab], every step taking the
//                      hidden states again and projecting them to cross-attention keys
//                      and values.
//
//   seq2seq_loop --model=t5.pte --design=pteforge --source_ids="..." --prompt=0 --new_tokens=64
//   seq2seq_loop --model=whisper.pte --design=optimum --features=x.f32 --mel_bins=80
//       --prompt="50258 50259 50359 50363" --new_tokens=64     (one command line)
//
// The prompt is fed one token per decode call (both designs take one token a call); the
// argmax of the last prompt token's output is the first new token. A short warm-up
// (encode and two steps, untimed) runs first. Prints the new token ids on stdout and one
// JSON line on stderr: encode_ms (the encoder call), decode_ms (from the end of encode to
// the last new token, the prompt's steps included), decode_tokens_per_s = new_tokens /
// decode_ms, peak_rss_mb, planned_bytes (the Session's arenas: the largest method's work
// memory + state) and separate_arenas_bytes (one arena per method, ExecuTorch's default).

#include <algorithm>
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

namespace pteforge {
namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::milli>(end - start).count();
}

HostTensor Longs(std::vector<int64_t> sizes, const std::vector<int64_t>& values) {
  return HostTensor::FromValues(ScalarType::Long, std::move(sizes), values);
}

// The argmax over the last row of a float32 output ([1, vocab] or [1, n, vocab]).
StatusOr<int64_t> LastArgmax(const Value& output) {
  const auto* scores = std::get_if<HostTensor>(&output);
  if (scores == nullptr || scores->dtype != ScalarType::Float || scores->sizes.empty()) {
    return Failure(Error::InvalidProgram, "the decoder did not return float32 scores");
  }
  const int64_t vocab = scores->sizes.back();
  const float* last = scores->data<float>() + (scores->numel() - vocab);
  return static_cast<int64_t>(std::max_element(last, last + vocab) - last);
}

// One generation: Encode() once, then Step(token, position) per decoder position.
class Generator {
 public:
  virtual ~Generator() = default;
  virtual Status Encode() = 0;
  virtual StatusOr<int64_t> Step(int64_t token, int64_t position) = 0;
};

// pteforge.seq2seq: encode fills the cache (one row, row 0 reads source 0).
class PteforgeGenerator : public Generator {
 public:
  PteforgeGenerator(Session* session, HostTensor source, bool speech)
      : session_(session), source_(std::move(source)), speech_(speech) {}

  Status Encode() override {
    std::vector<Value> inputs;
    inputs.emplace_back(source_);
    if (!speech_) inputs.emplace_back(Longs(source_.sizes, std::vector<int64_t>(source_.numel(), 1)));
    inputs.emplace_back(Longs({1}, {0}));
    auto outputs = session_->Execute("encode", inputs);
    return outputs.ok() ? Status() : outputs.status();
  }

  StatusOr<int64_t> Step(int64_t token, int64_t position) override {
    std::vector<Value> inputs;
    inputs.emplace_back(Longs({1, 1}, {token}));
    if (!speech_) inputs.emplace_back(Longs(source_.sizes, std::vector<int64_t>(source_.numel(), 1)));
    inputs.emplace_back(Longs({1, position + 1}, std::vector<int64_t>(position + 1, 1)));
    auto outputs = session_->Execute("decode_step", inputs);
    if (!outputs.ok()) return outputs.status();
    return LastArgmax(outputs->at(0));
  }

 private:
  Session* session_;
  HostTensor source_;
  bool speech_;
};

// transformers' Seq2SeqLMExportableModule: the decoder takes the encoder's hidden states
// at every step (kept in `inputs_`, built once: the loop does not copy them per step).
class OptimumGenerator : public Generator {
 public:
  OptimumGenerator(Session* session, HostTensor source) : session_(session), source_(std::move(source)) {}

  Status Encode() override {
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

  StatusOr<int64_t> Step(int64_t token, int64_t position) override {
    std::get<HostTensor>(inputs_[0]).mutable_data<int64_t>()[0] = token;
    std::get<HostTensor>(inputs_[2]).mutable_data<int64_t>()[0] = position;
    auto outputs = session_->Execute("text_decoder", inputs_);
    if (!outputs.ok()) return outputs.status();
    return LastArgmax(outputs->at(0));
  }

 private:
  Session* session_;
  HostTensor source_;
  std::vector<Value> inputs_;
};

// Encode, then the prompt one token a step, then `new_tokens` - 1 more steps.
StatusOr<std::vector<int64_t>> Generate(Generator& generator, const std::vector<int64_t>& prompt, int64_t new_tokens,
                                        double* encode_ms, double* decode_ms) {
  const auto start = Clock::now();
  PTEFORGE_RETURN_IF_ERROR(generator.Encode());
  const auto encoded = Clock::now();
  std::vector<int64_t> generated;
  int64_t position = 0;
  for (int64_t token : prompt) {
    auto next = generator.Step(token, position++);
    if (!next.ok()) return next.status();
    if (position == static_cast<int64_t>(prompt.size())) generated.push_back(next.value());
  }
  while (static_cast<int64_t>(generated.size()) < new_tokens) {
    auto next = generator.Step(generated.back(), position++);
    if (!next.ok()) return next.status();
    generated.push_back(next.value());
  }
  const auto end = Clock::now();
  if (encode_ms != nullptr) *encode_ms = Milliseconds(start, encoded);
  if (decode_ms != nullptr) *decode_ms = Milliseconds(encoded, end);
  return generated;
}

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
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  const std::string design = flags.Get("design");
  if (design != "pteforge" && design != "optimum") return tool.Fail("--design must be pteforge or optimum");
  auto prompt = ParseTokenIds(flags.Get("prompt"));
  auto new_tokens = flags.GetInt("new_tokens", 1, 1 << 20);
  auto mel_bins = flags.GetInt("mel_bins", 1, 1 << 16);
  if (!prompt.ok() || prompt->empty()) return tool.Fail("--prompt is required");
  if (!new_tokens.ok()) return tool.Fail(new_tokens.status());
  if (!mel_bins.ok()) return tool.Fail(mel_bins.status());
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
  auto session = Session::Open(flags.Get("model"));
  if (!session.ok()) return tool.Fail(session.status());
  const double load_ms = Milliseconds(load_start, Clock::now());
  std::unique_ptr<Generator> generator;
  if (design == "pteforge") {
    generator = std::make_unique<PteforgeGenerator>(session.value().get(), source, speech);
  } else {
    generator = std::make_unique<OptimumGenerator>(session.value().get(), source);
  }

  // Warm-up (first-call allocations), untimed: encode and two steps.
  auto warm = Generate(*generator, prompt.value(), 2, nullptr, nullptr);
  if (!warm.ok()) return tool.Fail(warm.status());
  double encode_ms = 0, decode_ms = 0;
  auto generated = Generate(*generator, prompt.value(), new_tokens.value(), &encode_ms, &decode_ms);
  if (!generated.ok()) return tool.Fail(generated.status());
  std::printf("%s\n", FormatTokenIds(generated.value()).c_str());
  const MemoryUsage& memory = session.value()->memory();
  std::fprintf(stderr,
               "{\"design\": \"%s\", \"prompt_tokens\": %zu, \"new_tokens\": %zu, \"load_ms\": %.3f, "
               "\"encode_ms\": %.3f, \"decode_ms\": %.3f, \"decode_steps\": %zu, \"decode_tokens_per_s\": %.3f, "
               "\"self_peak_rss_mb\": %.1f, \"planned_bytes\": %zu, \"state_bytes\": %zu, "
               "\"separate_arenas_bytes\": %zu}\n",
               design.c_str(), prompt->size(), generated->size(), load_ms, encode_ms, decode_ms,
               prompt->size() + generated->size() - 1, generated->size() / (decode_ms / 1e3), PeakRssMegabytes(),
               memory.total_planned_bytes(), memory.state_arena_bytes, memory.separate_arenas_bytes);
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
