// faster-whisper's VAD filter (transcribe(vad_filter=True): faster_whisper/vad.py and
// transcribe.py) on pteforge's Silero VAD program (models/silero_vad, the vad tool's):
// the speech chunks of the audio (Silero's get_speech_timestamps with faster-whisper's
// VadOptions defaults), their samples concatenated for Whisper, and the segments' times
// mapped back to the original audio.
//
//   auto speech = KeepSpeech(vad, samples, FasterWhisperVadOptions());
//   ... transcribe speech->samples ...
//   SpeechTimestampsMap map(speech->chunks, 16000);
//   segment.start = map.OriginalTime(segment.start, false);
//
// faster-whisper runs its own ONNX export of Silero VAD v6 (assets/silero_vad_v6.onnx);
// models/silero_vad exports silero-vad 6.2.3's model, whose probabilities differ from it
// (by up to 0.5 on a chunk; docs/whisper.md), so a chunk's edge can fall a chunk apart.
#ifndef PTEFORGE_CC_WHISPER_VAD_FILTER_H_
#define PTEFORGE_CC_WHISPER_VAD_FILTER_H_

#include <cstdint>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/vad/segments.h"
#include "cc/vad/vad_model.h"

namespace pteforge {

// faster-whisper's VadOptions() as get_speech_timestamps' parameters: threshold 0.5,
// silence below max(0.5 - 0.15, 0.01), no minimum speech, no maximum, 2 s of silence to
// end a chunk, 400 ms of padding.
SegmentOptions FasterWhisperVadOptions();

struct SpeechAudio {
  std::vector<Segment> chunks;  // in samples of the original audio, ascending
  std::vector<float> samples;   // the chunks' samples, one after another (collect_chunks)
};

// The speech of 16 kHz `samples`; no chunk (and no sample) when nothing is speech.
StatusOr<SpeechAudio> KeepSpeech(VadModel& vad, const std::vector<float>& samples, const SegmentOptions& options);

// faster-whisper's SpeechTimestampsMap: a time in the concatenated speech back to the
// original audio, adding the silence removed before the chunk the time falls in (a
// segment's end exactly at a chunk's end stays in that chunk); rounded to 0.01 s.
class SpeechTimestampsMap {
 public:
  SpeechTimestampsMap(const std::vector<Segment>& chunks, int sample_rate);
  double OriginalTime(double seconds, bool is_end) const;
  // get_chunk_index and get_original_time(time, chunk_index): a word's start and end
  // are mapped through the chunk of its middle (restore_speech_timestamps). Needs a chunk.
  size_t ChunkIndex(double seconds, bool is_end = false) const;
  double OriginalTime(double seconds, size_t chunk_index) const;

 private:
  int sample_rate_;
  std::vector<int64_t> chunk_end_sample_;       // each chunk's end in the concatenation
  std::vector<double> total_silence_before_;    // seconds removed before each chunk
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_VAD_FILTER_H_
