// A Silero VAD program (models/silero_vad/export.py) on a Session: one stream's state.
//
// The program's contract: a method process_16k ([1, 512] float32 -> [1, 1]) and/or
// process_8k ([1, 256] -> [1, 1]) per rate it was exported with, over shared state
// (the LSTM's h and c, the context samples, the last rate), and constant methods
// sample_rates and chunk_samples listing them. Create checks it, so that a wrong
// program is an error here rather than a failed call later.
//
// Thread-compatible: one stream's state, used by one thread at a time (the Session
// serializes calls anyway).
#ifndef PTEFORGE_CC_VAD_VAD_MODEL_H_
#define PTEFORGE_CC_VAD_VAD_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/runtime/status.h"

namespace pteforge {

class VadModel {
 public:
  // Takes an open Session on a Silero VAD program; `what` names it in messages.
  static StatusOr<std::unique_ptr<VadModel>> Create(std::unique_ptr<Session> session, const std::string& what);

  // An error saying which rates the program has, if `sample_rate` is not one of them.
  Status CheckRate(int sample_rate) const;

  // The speech probability of the next chunk of the stream at `sample_rate`
  // (ChunkSamples(sample_rate) samples). A call at another rate than the previous
  // one restarts the state, as Silero's model does.
  StatusOr<float> Process(int sample_rate, const float* chunk);
  // A fresh stream: the program's reset_state (Silero's reset_states()).
  Status Reset();

  Session& session() { return *session_; }

 private:
  VadModel() = default;

  std::unique_ptr<Session> session_;
  std::string name_;
  std::vector<int> rates_;
  std::vector<std::string> methods_;  // per rate
  HostTensor input_;                  // reused for every chunk
};

// The method of `sample_rate`: process_16k, process_8k.
std::string VadMethodName(int sample_rate);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_VAD_MODEL_H_
