// What the vad tool does with its inputs (cc/tools/vad.cc is only flags and this).
//
// RunFiles: each WAV file is a stream with its own state on one shared program; the
// streams advance a chunk each in turn, as a service serves its microphones, and each
// stream's results are printed as they are decided (prefixed with the file's name when
// there are several). Every file's layout is checked before anything runs, so a bad
// file means no output at all; the samples are then read a chunk at a time.
// RunRaw: raw 16-bit little-endian mono PCM from a FILE (stdin) as one live stream,
// results printed as they are decided.
//
// POSIX. Not thread-safe (one call at a time).
#ifndef PTEFORGE_CC_VAD_RUN_H_
#define PTEFORGE_CC_VAD_RUN_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/vad/options.h"
#include "cc/vad/shared_program.h"

namespace pteforge {

struct RunStats {
  int64_t streams = 0;
  int64_t chunks = 0;           // over all streams
  double audio_seconds = 0;     // over all streams
  double model_seconds = 0;     // wall time inside the model's calls
};

Status RunFiles(const SharedProgram& program, const std::vector<std::string>& paths, const VadOptions& options,
                std::FILE* out, RunStats* stats);

Status RunRaw(const SharedProgram& program, std::FILE* in, int sample_rate, const VadOptions& options,
              std::FILE* out, RunStats* stats);

}  // namespace pteforge

#endif  // PTEFORGE_CC_VAD_RUN_H_
