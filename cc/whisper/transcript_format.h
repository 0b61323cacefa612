// A long-form transcription's segments as text, SubRip (.srt), WebVTT (.vtt) or JSON:
// the text and subtitle layouts of openai-whisper's writers (whisper/utils.py: WriteTXT,
// WriteSRT, WriteVTT, format_timestamp), the JSON one pteforge's own (every field of a
// TranscriptSegment, one object per segment, as faster-whisper's Segment has them).
#ifndef PTEFORGE_CC_WHISPER_TRANSCRIPT_FORMAT_H_
#define PTEFORGE_CC_WHISPER_TRANSCRIPT_FORMAT_H_

#include <string>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/whisper/long_form.h"

namespace pteforge {

enum class TranscriptFormat { kText, kSrt, kVtt, kJson };

// "text", "srt", "vtt" or "json"; anything else is an InvalidArgument naming them.
StatusOr<TranscriptFormat> ParseTranscriptFormat(const std::string& name);

// "01:02:03,456" (SubRip: hours always, a comma) or "02:03.456" (WebVTT: hours when
// there are any, a point); milliseconds rounded as openai-whisper rounds them.
std::string FormatTimestamp(double seconds, bool always_include_hours, char decimal_marker);

// The whole document for `segments` (an empty transcription gives the format's empty
// document: nothing, or WebVTT's header, or a JSON object with no segments). With
// `words` (word timestamps ran), JSON gives every segment its "words", empty or not.
std::string FormatTranscript(const std::vector<TranscriptSegment>& segments, TranscriptFormat format,
                             bool words = false);

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_TRANSCRIPT_FORMAT_H_
