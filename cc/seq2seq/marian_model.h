// The Seq2SeqModel of a Marian .pte: encode / decode_step / reorder_cache of
// models/opus/marian.py on a Session. Keeps each row's encoder mask between steps, and
// times the calls. BergamotModel (bergamot_model.h) builds on it.
#ifndef PTEFORGE_CC_SEQ2SEQ_MARIAN_MODEL_H_
#define PTEFORGE_CC_SEQ2SEQ_MARIAN_MODEL_H_

#include <executorch/runtime/platform/platform.h>

#include "cc/generate/search.h"
#include "cc/runtime/session.h"
#include "cc/seq2seq/translate_stats.h"

namespace pteforge {

class MarianModel : public Seq2SeqModel {
 public:
  // `session` must outlive this object.
  MarianModel(Session* session, int64_t vocab_size, int64_t pad_token)
      : session_(session), vocab_size_(vocab_size), pad_token_(pad_token) {}

  Status Encode(const std::vector<std::vector<int64_t>>& sources, int beams) override;
  StatusOr<StepScores> Step(const std::vector<int64_t>& tokens, int64_t length) override;
  Status Reorder(const std::vector<int64_t>& rows) override;
  int64_t vocab_size() const override { return vocab_size_; }

  TranslateStats stats() const;
  void ResetStats() { encode_ns_ = decode_ns_ = steps_ = 0; }

 protected:
  // Adds the lifetime of a scope to a nanosecond counter. ExecuTorch's platform clock:
  // the same on Linux and on a microcontroller (cc/embedded's SysTick clock).
  class ScopeTimer {
   public:
    explicit ScopeTimer(int64_t* total) : total_(total), start_(executorch::runtime::pal_current_ticks()) {}
    ~ScopeTimer();

   private:
    int64_t* total_;
    et_timestamp_t start_;
  };

  // Runs decode_step on `inputs`, which must return float32 with `count` elements.
  StatusOr<std::vector<float>> RunStep(const std::vector<Value>& inputs, int64_t count);

  Session* session_;
  int64_t vocab_size_;
  int64_t pad_token_;
  HostTensor row_masks_;  // [rows, source length]
  int64_t encode_ns_ = 0;
  int64_t decode_ns_ = 0;
  int64_t steps_ = 0;
};

HostTensor Int64Tensor(std::vector<int64_t> sizes, const std::vector<int64_t>& values);

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_MARIAN_MODEL_H_
