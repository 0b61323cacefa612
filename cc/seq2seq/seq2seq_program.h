// What a pteforge.seq2seq program says about itself (python/pteforge/seq2seq/
// program_constants.py): its kind of encoder input, limits and generation settings as
// the search's options. Read by the translator (text programs) and the transcriber
// (Whisper programs).
#ifndef PTEFORGE_CC_SEQ2SEQ_SEQ2SEQ_PROGRAM_H_
#define PTEFORGE_CC_SEQ2SEQ_SEQ2SEQ_PROGRAM_H_

#include <cstdint>
#include <string>

#include "cc/generate/search.h"
#include "cc/runtime/session.h"

namespace pteforge {

struct Seq2SeqProgramInfo {
  std::string model_type;     // transformers' ("t5", "bart", "whisper", ...)
  std::string encoder_input;  // "input_ids" (text) or "input_features" (Whisper)
  int64_t vocab_size = 0;
  int64_t max_rows = 0;           // sources x beams at once
  int64_t max_sources = 0;        // sources at once (each step attends over all of them)
  int64_t max_source_length = 0;  // tokens, or Whisper's encoder positions
  int64_t max_target_length = 0;  // decoder positions
  SearchOptions defaults;         // the model's generation settings and special tokens
};

// Reads the constants of a program whose "family" is "seq2seq"; `what` names it in
// messages. Refuses settings the search cannot follow (more than one end-of-sequence
// token, a forced last token other than it) and token ids outside the vocabulary.
StatusOr<Seq2SeqProgramInfo> ReadSeq2SeqProgram(Session& session, const std::string& what);

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_SEQ2SEQ_PROGRAM_H_
