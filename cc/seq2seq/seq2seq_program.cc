#include "cc/seq2seq/seq2seq_program.h"

#include <algorithm>
#include <vector>

#include "cc/runtime/constants.h"

namespace pteforge {
namespace {

template <typename T>
Status Read(Session& session, const char* name, T* out) {
  return ReadConstant(session, name, "a seq2seq program", out);
}

}  // namespace

StatusOr<Seq2SeqProgramInfo> ReadSeq2SeqProgram(Session& s, const std::string& what) {
  Seq2SeqProgramInfo info;
  SearchOptions& d = info.defaults;
  std::vector<int64_t> eos;
  int64_t beams = 1, forced_eos = -1;
  for (Status status : {
           Read(s, "model_type", &info.model_type), Read(s, "encoder_input", &info.encoder_input),
           Read(s, "vocab_size", &info.vocab_size), Read(s, "decoder_start_token_id", &d.start_token),
           Read(s, "eos_token_ids", &eos), Read(s, "pad_token_id", &d.pad_token),
           Read(s, "num_beams", &beams), Read(s, "max_length", &d.max_length), Read(s, "min_length", &d.min_length),
           Read(s, "length_penalty", &d.length_penalty), Read(s, "early_stopping", &d.early_stopping),
           Read(s, "forced_bos_token_id", &d.forced_bos_token), Read(s, "forced_eos_token_id", &forced_eos),
           Read(s, "bad_words_ids", &d.bad_tokens), Read(s, "suppress_tokens", &d.suppress_tokens),
           Read(s, "begin_suppress_tokens", &d.begin_suppress_tokens),
           Read(s, "renormalize_logits", &d.renormalize), Read(s, "max_rows", &info.max_rows),
           Read(s, "max_source_length", &info.max_source_length),
           Read(s, "max_target_length", &info.max_target_length)}) {
    if (!status.ok()) return status;
  }
  // Programs from before max_sources kept a source per row.
  const std::vector<std::string>& constants = s.constants();
  info.max_sources = info.max_rows;
  if (std::find(constants.begin(), constants.end(), "max_sources") != constants.end()) {
    PTEFORGE_RETURN_IF_ERROR(Read(s, "max_sources", &info.max_sources));
  }
  if (eos.size() != 1) {
    return Failure(Error::NotSupported, "%s names %zu end-of-sequence tokens; pteforge's search handles exactly one",
                   what.c_str(), eos.size());
  }
  d.eos_token = eos[0];
  if (forced_eos >= 0 && forced_eos != d.eos_token) {
    return Failure(Error::NotSupported, "%s forces token %lld at the last position, not its end-of-sequence token",
                   what.c_str(), static_cast<long long>(forced_eos));
  }
  d.forced_eos = forced_eos >= 0;
  d.beams = static_cast<int>(beams);
  for (const std::vector<int64_t>* tokens : {&d.bad_tokens, &d.suppress_tokens, &d.begin_suppress_tokens}) {
    for (int64_t token : *tokens) {
      if (token < 0 || token >= info.vocab_size) {
        return Failure(Error::InvalidProgram, "%s suppresses token %lld, outside its vocabulary of %lld", what.c_str(),
                       static_cast<long long>(token), static_cast<long long>(info.vocab_size));
      }
    }
  }
  return info;
}

}  // namespace pteforge
