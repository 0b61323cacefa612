// The command-line options of the vad programs (the Linux tool and the Cortex-M55
// image): get_speech_timestamps' parameters under its own names, and how to print.
#ifndef PTEFORGE_CC_VAD_OPTIONS_H_
#define PTEFORGE_CC_VAD_OPTIONS_H_

#include "cc/cli/flags.h"
#include "cc/runtime/status.h"
#include "cc/vad/printer.h"
#include "cc/vad/segments.h"

namespace pteforge {

// --threshold, --neg_threshold, --min_speech_duration_ms, --max_speech_duration_s,
// --min_silence_duration_ms, --speech_pad_ms, --min_silence_at_max_speech,
// --use_max_poss_sil_at_max_speech, --units, --time_resolution, --probs.
void DefineVadFlags(Flags& flags);

struct VadOptions {
  SegmentOptions segments;
  PrintOptions print;
};

// The options given; an error names the flag and what it accepts.
StatusOr<VadOptions> ParseVadFlags(const Flags& flags);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_OPTIONS_H_
