// generate: text from a causal-LM .pte exported by pteforge.llm (docs/llm.md). The .pte
// carries its tokenizer and generation defaults; the text streams to stdout as it is
// generated.
//
//   generate --model=model.pte "Once upon a time"     the prompt as arguments
//   echo "Once upon a time" | generate --model=model.pte    or all of stdin
//   generate --model=model.pte --ids="1 450 4996"     token ids in and out (no tokenizer)
//   generate --model=model.pte --chat                 a chat: one line a turn, the cache kept
//   generate --model=model.pte --messages=chat.json   the user turns of a messages file
//
// Greedy or sampling as the model's generation config says; --greedy, --sample,
// --temperature, --top_k, --top_p, --repetition_penalty and --seed override it (the
// same seed gives the same text on every target). It stops at the model's EOS ids, at
// --max_new_tokens, or when prompt and generated tokens fill the model's max_seq_len
// (said on stderr). --stats prints one JSON line on stderr: token counts, prefill and
// decode tokens/s, time to first token, load time, peak RSS and the program's planned
// memory (state and work arenas).
// A chat (cc/llm/chat_run.h) streams each reply on its own line, prefilling only each
// turn's new tokens; --stats then prints one JSON line per turn.
// Exit status: 0, 1 for a model or prompt that cannot be used (too long, not a causal
// LM, no tokenizer or chat template, a chat that outgrew max_seq_len), 2 for bad flags
// or a bad --messages file.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "cc/cli/peak_rss.h"
#include "cc/cli/runtime_tool.h"
#include "cc/generate/token_ids.h"
#include "cc/llm/chat_run.h"
#include "cc/llm/generate_flags.h"
#include "cc/llm/text_generator.h"

namespace pteforge {
namespace {

class StdoutSink : public TextSink, public TokenSink {
 public:
  Status OnText(std::string_view piece) override {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
    return Status();
  }
  Status OnToken(int64_t token) override {
    std::printf("%s%lld", first_ ? "" : " ", static_cast<long long>(token));
    std::fflush(stdout);
    first_ = false;
    return Status();
  }

 private:
  bool first_ = true;
};

int Main(int argc, char** argv) {
  RuntimeTool tool("generate", "--model=model.pte [flags] [prompt ...]   (no prompt: read stdin)",
                   /*default_threads=*/1);
  Flags& flags = tool.flags();
  flags.Define("model", "the causal-LM .pte (pteforge-export --hf_model=DIR)");
  flags.Define("ids", "the prompt as token ids (\"1 450 4996\"); prints ids instead of text");
  DefineGenerateFlags(&flags);
  DefineChatFlags(&flags);
  flags.DefineSwitch("stats", "print token counts and speeds as one JSON line on stderr");
  if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
  if (!flags.IsSet("model")) return tool.Fail("--model=model.pte is required", kUsageError);
  if (flags.IsSet("ids") && !flags.positional().empty()) {
    return tool.Fail("--ids or a text prompt, not both", kUsageError);
  }
  std::optional<ChatRequest> chat;
  if (ChatRequested(flags)) {
    auto request = ChatRequestFromFlags(flags);
    if (!request.ok()) return tool.Fail(request.status(), kUsageError);
    chat = std::move(request.value());
  }

  const auto load_start = std::chrono::steady_clock::now();
  const std::string path = flags.Get("model");
  std::unique_ptr<TextGenerator> text;
  std::unique_ptr<CausalLm> ids_model;
  // Language models are tested with XNNPACK's weight cache: prefill and decode_step
  // share one packed copy of the weights (SessionOptions::share_packed_weights).
  SessionOptions session_options;
  session_options.share_packed_weights = true;
  if (flags.IsSet("ids")) {
    auto session = Session::Open(path, session_options);
    if (!session.ok()) return tool.Fail(session.status());
    auto model = CausalLm::Create(std::move(session.value()), path);
    if (!model.ok()) return tool.Fail(model.status());
    ids_model = std::move(model.value());
  } else {
    auto generator = TextGenerator::Open(path, session_options);
    if (!generator.ok()) return tool.Fail(generator.status());
    text = std::move(generator.value());
  }
  CausalLm& model = text ? text->model() : *ids_model;
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - load_start).count();
  GenerateOptions options = model.Defaults();
  Status applied = ApplyGenerateFlags(flags, &options);
  if (!applied.ok()) return tool.Fail(applied, kUsageError);
  StdoutSink out;
  if (chat) {
    Status chatted = RunChatRequest(std::move(*chat), text.get(), path, {options, flags.IsSet("stats")}, out,
                                    [&tool](const std::string& note) { tool.Tell(note); });
    return chatted.ok() ? 0 : tool.Fail(chatted);
  }

  StatusOr<std::vector<int64_t>> prompt = std::vector<int64_t>();
  if (flags.IsSet("ids")) {
    prompt = ParseTokenIds(flags.Get("ids"));
    if (!prompt.ok()) return tool.Fail("--ids: " + prompt.status().message(), kUsageError);
  } else {
    std::string prompt_text;
    for (const std::string& word : flags.positional()) prompt_text += (prompt_text.empty() ? "" : " ") + word;
    if (flags.positional().empty()) {
      prompt_text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    prompt = text->Encode(prompt_text);
    if (!prompt.ok()) return tool.Fail("the prompt: " + prompt.status().message());
  }

  auto generation = text ? text->Generate(prompt.value(), options, &out) : model.Generate(prompt.value(), options, &out);
  if (!generation.ok()) return tool.Fail(generation.status());
  std::printf("\n");
  if (generation->stop == StopReason::kMaxSeqLen) {
    tool.Tell("stopped at the model's max_seq_len of " + std::to_string(model.info().max_seq_len) +
              " tokens (prompt and generated)");
  }
  if (flags.IsSet("stats")) {
    const Generation& g = generation.value();
    const double prompt_tokens = static_cast<double>(prompt->size());
    std::fprintf(stderr,
                 "{\"prompt_tokens\": %zu, \"generated_tokens\": %zu, \"stop\": \"%s\", \"load_ms\": %.3f, "
                 "\"prefill_ms\": %.3f, \"prefill_tokens_per_s\": %.3f, \"time_to_first_token_ms\": %.3f, "
                 "\"decode_ms\": %.3f, \"decode_steps\": %lld, \"decode_tokens_per_s\": %.3f, "
                 "\"peak_rss_mb\": %.1f, \"planned_bytes\": %zu}\n",
                 prompt->size(), g.tokens.size(), StopReasonName(g.stop), load_ms, g.prefill_ms,
                 g.prefill_ms > 0 ? prompt_tokens / (g.prefill_ms / 1e3) : 0.0, g.first_token_ms, g.decode_ms,
                 static_cast<long long>(g.decode_steps), g.decode_ms > 0 ? g.decode_steps / (g.decode_ms / 1e3) : 0.0,
                 PeakRssMegabytes(), model.session().memory().total_planned_bytes());
  }
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
