// Printing a stream's results as they are decided: one speech segment a line,
// "start end" (in seconds or samples, as get_speech_timestamps gives them), and with
// probabilities on, "prob <chunk> <probability>" for every chunk as it is run. With a
// label (several streams), every line starts with it.
//
// Works on any C library (printf only). Thread-compatible.
#ifndef PTEFORGE_CC_VAD_PRINTER_H_
#define PTEFORGE_CC_VAD_PRINTER_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cc/vad/segments.h"
#include "cc/vad/stream.h"
#include "cc/vad/timestamps.h"

namespace pteforge {

struct PrintOptions {
  Units units = Units::kSeconds;
  int time_resolution = 1;
  bool probabilities = false;
};

class ResultPrinter {
 public:
  // `out` must outlive the printer; `label` prefixes every line (empty: none).
  ResultPrinter(std::FILE* out, const PrintOptions& options, std::string label);

  // Prints what `stream` decided since the last call: its new probabilities, and the
  // segments whose printed form is final (in seconds, a segment's end waits until the
  // stream is longer than it, or ends). Flushes when it printed anything.
  void Drain(VadStream& stream, bool finished);

 private:
  std::FILE* out_;
  PrintOptions options_;
  std::string prefix_;
  std::vector<Segment> waiting_;
  int64_t chunk_ = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_PRINTER_H_
