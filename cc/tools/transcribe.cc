// transcribe: speech to text with a Whisper program exported by pteforge.seq2seq
// (`pteforge-export --hf_seq2seq=WHISPER_FOLDER`); the program carries the tokenizer and
// the generation settings, the log-mel features are computed here (cc/whisper).
//
//   transcribe --model=whisper.pte speech.wav [more.wav ...]    one line of text per file
//   transcribe --model=whisper.pte --format=srt speech.wav > speech.srt
//
// Input: 16-bit PCM mono WAV at 16 kHz (cc/vad/wav.h). Two decodings:
// - --decoding=long_form (the default): faster-whisper's transcribe() with its defaults
//   (cc/whisper/long_form.h): timestamps and segments, each 30-s window starting where
//   the last segment ended, the previous text as the prompt, 5 beams, temperature
//   fallback, silent windows skipped. --format text (one line per file), srt, vtt or
//   json (one file at a time).
// - --decoding=windows: transformers' generate() on each 30-s window with the model's
//   generation settings, no timestamps; --print_ids shows each window's ids.
// Flags: --model (required), --language (default en), --task (transcribe or translate),
// --beams, --threads, --stats (one JSON line per file on stderr), --quiet, --verbose,
// and each decoding's own (--help lists them).
// A file that cannot be read gets a message on stderr and an empty line; the exit status
// is then 1. A program that is not a Whisper program: 1. Bad flags: 2.
#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cc/cli/runtime_tool.h"
#include "cc/generate/token_ids.h"
#include "cc/vad/vad_model.h"
#include "cc/vad/wav.h"
#include "cc/whisper/transcriber.h"
#include "cc/whisper/transcript_format.h"

namespace pteforge {
namespace {

// The samples of a WAV file at `rate` Hz (the program's front end's).
StatusOr<std::vector<float>> ReadSamples(const std::string& path, int64_t rate) {
  auto reader = WavReader::Open(path);
  if (!reader.ok()) return reader.status();
  if (reader.value()->sample_rate() != rate) {
    return Failure(Error::InvalidArgument, "%s is sampled at %d Hz; Whisper takes 16 kHz (resample it, e.g. "
                   "sox in.wav -r 16000 out.wav)", path.c_str(), reader.value()->sample_rate());
  }
  std::vector<float> samples;
  Status read = reader.value()->Read(static_cast<size_t>(reader.value()->samples()), &samples);
  if (!read.ok()) return read;
  return samples;
}

// A threshold flag: a number, or "none" (the check is off).
StatusOr<std::optional<double>> Threshold(const Flags& flags, const std::string& name) {
  if (flags.Get(name) == "none") return std::optional<double>();
  auto value = flags.GetDouble(name, -1e9, 1e9);
  if (!value.ok()) return Failure(Error::InvalidArgument, "%s, or none", value.status().message().c_str());
  return std::optional<double>(value.value());
}

StatusOr<std::vector<double>> Temperatures(const std::string& text) {
  std::vector<double> values;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    const double value = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(value >= 0 && value <= 10)) {
      return Failure(Error::InvalidArgument, "--temperature=%s: expected numbers from 0 to 10, comma-separated",
                     text.c_str());
    }
    values.push_back(value);
    start = comma + 1;
  }
  return values;
}

// faster-whisper's options from the flags.
StatusOr<LongFormOptions> LongFormFlags(const Flags& flags) {
  LongFormOptions options;
  options.language = flags.Get("language");
  options.task = flags.Get("task");
  auto beams = flags.GetInt("beams", 0, 64);
  auto best_of = flags.GetInt("best_of", 1, 64);
  auto patience = flags.GetDouble("patience", 0.01, 64);
  auto seed = flags.GetInt("seed", 0, std::numeric_limits<int64_t>::max());
  auto temperatures = Temperatures(flags.Get("temperature"));
  auto compression = Threshold(flags, "compression_ratio_threshold");
  auto log_prob = Threshold(flags, "log_prob_threshold");
  auto no_speech = Threshold(flags, "no_speech_threshold");
  for (const Status& status : {beams.status(), best_of.status(), patience.status(), seed.status(),
                               temperatures.status(), compression.status(), log_prob.status(), no_speech.status()}) {
    if (!status.ok()) return status;
  }
  if (flags.Get("condition_on_previous_text") != "true" && flags.Get("condition_on_previous_text") != "false") {
    return Failure(Error::InvalidArgument, "--condition_on_previous_text=%s: expected true or false",
                   flags.Get("condition_on_previous_text").c_str());
  }
  options.beam_size = beams.value() > 0 ? static_cast<int>(beams.value()) : 5;
  options.best_of = static_cast<int>(best_of.value());
  options.patience = patience.value();
  options.seed = static_cast<uint64_t>(seed.value());
  options.temperatures = temperatures.value();
  options.compression_ratio_threshold = compression.value();
  options.log_prob_threshold = log_prob.value();
  options.no_speech_threshold = no_speech.value();
  options.condition_on_previous_text = flags.Get("condition_on_previous_text") == "true";
  options.initial_prompt = flags.Get("initial_prompt");
  options.without_timestamps = flags.IsSet("without_timestamps");
  options.word_timestamps = flags.IsSet("word_timestamps");
  options.prepend_punctuations = flags.Get("prepend_punctuations");
  options.append_punctuations = flags.Get("append_punctuations");
  return options;
}

// faster-whisper's VadOptions from the --vad_* flags.
StatusOr<SegmentOptions> VadFlags(const Flags& flags) {
  SegmentOptions options = FasterWhisperVadOptions();
  auto threshold = flags.GetDouble("vad_threshold", 0, 1);
  auto min_silence = flags.GetDouble("vad_min_silence_ms", 0, 1e9);
  auto pad = flags.GetDouble("vad_speech_pad_ms", 0, 1e9);
  auto max_speech = flags.GetDouble("vad_max_speech_s", 0, std::numeric_limits<double>::infinity());
  auto min_speech = flags.GetDouble("vad_min_speech_ms", 0, 1e9);
  for (const Status& status : {threshold.status(), min_silence.status(), pad.status(), max_speech.status(),
                               min_speech.status()}) {
    if (!status.ok()) return status;
  }
  options.threshold = threshold.value();
  options.min_silence_duration_ms = min_silence.value();
  options.speech_pad_ms = pad.value();
  options.max_speech_duration_s = max_speech.value();
  options.min_speech_duration_ms = min_speech.value();
  PTEFORGE_RETURN_IF_ERROR(options.Validate());
  return options;
}

int Main(int argc, char** argv) {
  RuntimeTool tool("transcribe", "--model=whisper.pte [flags] speech.wav ...");
  Flags& flags = tool.flags();
  flags.Define("model", "the Whisper .pte (pteforge-export --hf_seq2seq)");
  flags.Define("decoding", "long_form (faster-whisper's transcribe()) or windows (transformers' generate() "
               "on each 30-s window)", "long_form");
  flags.Define("language", "the spoken language's token, <|xx|> (multilingual models)", "en");
  flags.Define("task", "transcribe, or translate (into English)", "transcribe");
  flags.Define("beams", "beam search width; 1 = greedy (default: 5 for long_form, the model's for windows)", "0");
  flags.Define("format", "long_form: text (one line per file), srt, vtt or json (one file)", "text");
  flags.Define("best_of", "long_form: hypotheses sampled at a temperature above 0", "5");
  flags.Define("patience", "long_form: beam search ends after beams x patience hypotheses", "1");
  flags.Define("temperature", "long_form: the fallback temperatures, comma-separated", "0,0.2,0.4,0.6,0.8,1");
  flags.Define("compression_ratio_threshold", "long_form: decode again above this gzip ratio (none: never)", "2.4");
  flags.Define("log_prob_threshold", "long_form: decode again below this mean log-probability (none)", "-1");
  flags.Define("no_speech_threshold", "long_form: a window this likely silent and improbable is skipped (none)",
               "0.6");
  flags.Define("condition_on_previous_text", "long_form: the previous text as the next window's prompt", "true");
  flags.Define("initial_prompt", "long_form: text as if said before the audio");
  flags.DefineSwitch("without_timestamps", "long_form: no timestamps (one segment per window)");
  flags.DefineSwitch("word_timestamps",
                     "long_form: each segment's words with their times (in --format=json; segment times follow them)");
  flags.Define("prepend_punctuations", "--word_timestamps: marks joined to the next word",
               std::string(kPrependPunctuations));
  flags.Define("append_punctuations", "--word_timestamps: marks joined to the previous word",
               std::string(kAppendPunctuations));
  flags.Define("seed", "long_form: the sampling's seed", "0");
  flags.Define("vad", "long_form: a Silero VAD program (//models/silero_vad): transcribe only its speech, as "
               "faster-whisper's vad_filter");
  flags.Define("vad_threshold", "--vad: speech above this probability", "0.5");
  flags.Define("vad_min_silence_ms", "--vad: silence that ends a speech chunk", "2000");
  flags.Define("vad_speech_pad_ms", "--vad: speech chunks padded by this much", "400");
  flags.Define("vad_max_speech_s", "--vad: longer chunks are split (inf: never)", "inf");
  flags.Define("vad_min_speech_ms", "--vad: shorter chunks are dropped", "0");
  flags.Define("max_length", "windows: most decoder tokens per window, prompt included (default: the model's)", "0");
  flags.DefineSwitch("print_ids", "windows: print each window's generated token ids too");
  flags.DefineSwitch("stats", "print timings per file as JSON on stderr");
  flags.DefineSwitch("quiet", "no banner (the model, language, task and beams) on stderr");
  if (auto exit_status = tool.Start(argc, argv)) return *exit_status;
  const std::string decoding = flags.Get("decoding");
  if (decoding != "long_form" && decoding != "windows") {
    return tool.Fail("--decoding=" + decoding + ": expected long_form or windows", kUsageError);
  }
  const bool long_form = decoding == "long_form";
  auto beams = flags.GetInt("beams", 0, 64);
  if (!beams.ok()) return tool.Fail(beams.status(), kUsageError);
  auto max_length = flags.GetInt("max_length", 0, 1 << 20);
  if (!max_length.ok()) return tool.Fail(max_length.status(), kUsageError);
  auto format = ParseTranscriptFormat(flags.Get("format"));
  if (!format.ok()) return tool.Fail(format.status(), kUsageError);
  StatusOr<LongFormOptions> long_form_options = LongFormOptions{};
  if (long_form) {
    long_form_options = LongFormFlags(flags);
    if (!long_form_options.ok()) return tool.Fail(long_form_options.status(), kUsageError);
    if (flags.IsSet("print_ids")) {
      return tool.Fail("--print_ids needs --decoding=windows (long_form: --format=json has each segment's tokens)",
                       kUsageError);
    }
  } else if (format.value() != TranscriptFormat::kText) {
    return tool.Fail("--format=" + flags.Get("format") + " needs --decoding=long_form (timestamps)", kUsageError);
  }
  if (!flags.IsSet("model")) {
    return tool.Fail("--model is required (a Whisper program: pteforge-export --hf_seq2seq)", kUsageError);
  }
  if (flags.positional().empty()) return tool.Fail("give one or more WAV files", kUsageError);
  if (format.value() != TranscriptFormat::kText && flags.positional().size() > 1) {
    return tool.Fail("--format=" + flags.Get("format") + " writes one document: give one WAV file", kUsageError);
  }
  auto vad_options = VadFlags(flags);
  if (!vad_options.ok()) return tool.Fail(vad_options.status(), kUsageError);
  if (!long_form && flags.IsSet("vad")) return tool.Fail("--vad needs --decoding=long_form", kUsageError);
  // One packed copy of each weight for every method (encode, decode_step, prefill and
  // align share the decoder's and the output projection's): 114 MB less for tiny.en.
  SessionOptions session_options;
  session_options.share_packed_weights = true;
  auto transcriber = Transcriber::Open(flags.Get("model"), session_options);
  if (!transcriber.ok()) return tool.Fail(transcriber.status());
  std::unique_ptr<VadModel> vad_model;
  VadFilter vad;
  if (flags.IsSet("vad")) {
    auto session = Session::Open(flags.Get("vad"));
    if (!session.ok()) return tool.Fail(session.status());
    auto model = VadModel::Create(std::move(session.value()), "'" + flags.Get("vad") + "'");
    if (!model.ok()) return tool.Fail(model.status());
    vad_model = std::move(model.value());
    vad.model = vad_model.get();
    vad.options = vad_options.value();
  }
  TranscribeOptions options;
  options.language = flags.Get("language");
  options.task = flags.Get("task");
  options.beams = static_cast<int>(beams.value());
  options.max_length = max_length.value();
  if (!flags.IsSet("quiet")) {
    const auto& info = transcriber.value()->info();
    const int shown_beams = long_form ? long_form_options->beam_size
                                      : (options.beams > 0 ? options.beams : info.defaults.beams);
    tool.Tell(info.model_type + ", " + decoding + ", " + options.language + ", " + options.task + ", " +
              std::to_string(shown_beams) + " beam(s)");
  }
  int failures = 0;
  for (const std::string& path : flags.positional()) {
    auto samples = ReadSamples(path, transcriber.value()->sampling_rate());
    if (!samples.ok()) {
      tool.Tell(samples.status().message());
      std::printf("\n");
      ++failures;
      continue;
    }
    auto start = std::chrono::steady_clock::now();
    std::string output;
    size_t units = 0;  // windows, or segments
    double speech_seconds = -1;  // long_form: the audio Whisper heard
    if (long_form) {
      auto transcript = transcriber.value()->TranscribeLongForm(samples.value(), long_form_options.value(),
                                                                vad.model != nullptr ? &vad : nullptr);
      if (!transcript.ok()) return tool.Fail(path + ": " + transcript.status().message());
      units = transcript->segments.size();
      speech_seconds = transcript->speech_seconds;
      if (format.value() == TranscriptFormat::kText) {
        std::string text;
        for (const TranscriptSegment& segment : transcript->segments) text += segment.text;
        const size_t first = text.find_first_not_of(' ');
        output = (first == std::string::npos ? "" : text.substr(first)) + "\n";
      } else {
        output = FormatTranscript(transcript->segments, format.value(), long_form_options->word_timestamps);
      }
    } else {
      auto result = transcriber.value()->Transcribe(samples.value(), options);
      // Bad options or a failing program: the same for every file.
      if (!result.ok()) return tool.Fail(path + ": " + result.status().message());
      units = result->ids.size();
      output = result->text + "\n";
      if (flags.IsSet("print_ids")) {
        for (const auto& ids : result->ids) output += "  ids: " + FormatTokenIds(ids) + "\n";
      }
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::fputs(output.c_str(), stdout);
    std::fflush(stdout);
    if (flags.IsSet("stats")) {
      char heard[64] = "";
      if (speech_seconds >= 0) std::snprintf(heard, sizeof(heard), ", \"speech_seconds\": %.3f", speech_seconds);
      std::fprintf(stderr, "{\"file\": \"%s\", \"seconds\": %.3f%s, \"%s\": %zu, \"ms\": %.3f}\n", path.c_str(),
                   samples->size() / static_cast<double>(transcriber.value()->sampling_rate()), heard,
                   long_form ? "segments" : "windows", units, ms);
    }
  }
  return failures > 0 ? 1 : 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
