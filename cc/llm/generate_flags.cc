#include "cc/llm/generate_flags.h"

#include <cstdint>
#include <cstdlib>
#include <tuple>
#include <utility>

namespace pteforge {
namespace {

StatusOr<double> GetDouble(const Flags& flags, const char* name) {
  const std::string& text = flags.Get(name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    return Failure(Error::InvalidArgument, "--%s=%s is not a number", name, text.c_str());
  }
  return value;
}

}  // namespace

void DefineGenerateFlags(Flags* flags) {
  flags->Define("max_new_tokens", "most tokens to generate (default: the model's, else until EOS or max_seq_len)");
  flags->DefineSwitch("greedy", "always the most likely token");
  flags->DefineSwitch("sample", "draw tokens at random (--temperature, --top_k, --top_p)");
  flags->Define("temperature", "sampling temperature (default: the model's; 0: greedy)");
  flags->Define("top_k", "sample among the k most likely tokens; 0: all (default: the model's)");
  flags->Define("top_p", "sample among the most likely tokens holding this probability (default: the model's)");
  flags->Define("repetition_penalty", "discount tokens already seen; 1: none (default: the model's)");
  flags->Define("seed", "random seed for sampling: the same seed gives the same text on every target", "0");
}

Status ApplyGenerateFlags(const Flags& flags, GenerateOptions* options) {
  SamplingOptions& sampling = options->sampling;
  if (flags.IsSet("greedy") && flags.IsSet("sample")) {
    return Failure(Error::InvalidArgument, "--greedy or --sample, not both");
  }
  if (flags.IsSet("greedy")) sampling.do_sample = false;
  if (flags.IsSet("sample")) sampling.do_sample = true;
  for (auto [name, field] : {std::pair{"temperature", &sampling.temperature}, std::pair{"top_p", &sampling.top_p},
                             std::pair{"repetition_penalty", &sampling.repetition_penalty}}) {
    if (!flags.IsSet(name)) continue;
    auto value = GetDouble(flags, name);
    if (!value.ok()) return value.status();
    *field = value.value();
  }
  const bool temperature_zero = flags.IsSet("temperature") && sampling.temperature == 0;
  if (temperature_zero) {  // the usual spelling of greedy
    if (flags.IsSet("sample")) return Failure(Error::InvalidArgument, "--temperature=0 is greedy: not with --sample");
    sampling.do_sample = false;
    sampling.temperature = 1;
  }
  // top_k 0 is all tokens; max_new_tokens at least 1 (0 would read as the model's "no limit").
  for (auto [name, field, least] : {std::tuple{"top_k", &sampling.top_k, int64_t{0}},
                                    std::tuple{"max_new_tokens", &options->max_new_tokens, int64_t{1}}}) {
    if (!flags.IsSet(name)) continue;
    auto value = flags.GetInt(name, least, int64_t{1} << 40);
    if (!value.ok()) return value.status();
    *field = value.value();
  }
  if (flags.IsSet("seed")) {
    auto seed = flags.GetInt("seed", 0, INT64_MAX);
    if (!seed.ok()) return seed.status();
    options->seed = static_cast<uint64_t>(seed.value());
  }
  const bool sampling_flag = flags.IsSet("top_k") || flags.IsSet("top_p") ||
                             (flags.IsSet("temperature") && !temperature_zero);
  if (!sampling.do_sample && sampling_flag) {
    return Failure(Error::InvalidArgument,
                   "--temperature, --top_k and --top_p apply to sampling: add --sample (this model's default is "
                   "greedy decoding, or --greedy was given)");
  }
  return CheckSamplingOptions(sampling);
}

}  // namespace pteforge
