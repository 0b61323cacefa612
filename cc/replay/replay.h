// Replaying an export's conformance check where the program runs.
//
// The exporter can keep the call sequence its conformance check ran and everything
// eager PyTorch gave, as text (python/pteforge/replay.py: `pte_export(replay = True)`
// writes <name>.replay.txt). RunReplay makes the same calls through a Session on this
// target and compares every output, every input the method writes in place and every
// state buffer after every call with eager PyTorch's values, within the export's
// tolerance; then it runs reset_state and requires the initial state again.
//
// Nothing here depends on the platform: the same code runs on Linux and on a
// microcontroller (where the record is embedded in the image, cc/embedded).
#ifndef PTEFORGE_CC_REPLAY_REPLAY_H_
#define PTEFORGE_CC_REPLAY_REPLAY_H_

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cc/cli/calls.h"
#include "cc/runtime/session.h"

namespace pteforge {

struct ReplayCall {
  Call call;
  std::vector<std::pair<size_t, Value>> outputs;            // index, eager value
  std::vector<std::pair<size_t, Value>> written;            // input index, eager's value after the call
  std::vector<std::pair<std::string, Value>> state_after;   // buffer, eager value
};

// As pteforge.Tolerance: |got - want| <= atol * scale + rtol * |want|, where scale is
// the largest magnitude in eager's value (at least 1; 1 if it holds a NaN or an
// infinity) when `scaled`, else 1.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
  bool scaled = false;
};

struct Replay {
  std::string program;  // the exporter's name for it
  Tolerance tolerance;
  std::vector<std::pair<std::string, Value>> initial_state;
  std::vector<ReplayCall> calls;
};

// Parses a replay record; errors name the line.
StatusOr<Replay> ParseReplay(const std::string& text);

struct ReplayResult {
  size_t calls = 0;
  size_t values_compared = 0;
  double max_abs_error = 0;  // over floating-point values
};

// Called with each call's index (from 1), the call with its inputs as the method left
// them, and the outputs the Session gave.
using ReplayObserver = std::function<void(size_t, const Call&, const std::vector<Value>&)>;

// Runs the record's calls on `session` and compares; the first difference beyond the
// tolerance is an error naming the call, the value and the element.
StatusOr<ReplayResult> RunReplay(Session& session, const Replay& replay, const ReplayObserver& observe = {});

// What the replay programs do (cc/tools/pte_replay on Linux, cc/embedded on a
// microcontroller): parses and replays `text`, printing one summary line to stdout,
// and with `print_outputs` every call's outputs and written inputs as exact literals
// first ("[i] method output k = values(...)[...]", "[i] method written input k = ..."),
// so two runtimes can be compared byte for byte.
Status ReplayAndPrint(Session& session, const std::string& text, bool print_outputs);

// Whether `got` equals `want` within the tolerance (for floating point, NaN equal to
// NaN; exact otherwise); `max_abs_error` grows with the largest floating-point
// difference seen. The error says what differs and where.
Status CompareValue(const Value& want, const Value& got, const Tolerance& tolerance, double* max_abs_error);

}  // namespace pteforge

#endif  // PTEFORGE_CC_REPLAY_REPLAY_H_
