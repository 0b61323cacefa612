// Word timestamps as faster-whisper 1.2.1 computes them (word_timestamps=True), as pure
// functions: the program's part (the forced pass over a window's text, giving the
// alignment heads' cross-attention scores and the logits) is the caller's.
//
//   1. AlignmentPath: CTranslate2 4.8's WhisperReplica::align after the decoder
//      (src/models/whisper.cc, dtw.cc, ops/median_filter_cpu.cc): the heads' scores to a
//      monotone path of (text index, encoder frame) pairs.
//   2. FindAlignment: faster-whisper's find_alignment: the path and the tokens'
//      probabilities to words (split_to_word_tokens) with start, end and probability.
//   3. AddWordTimestamps: add_word_timestamps for one window's segments (faster-whisper
//      passes [current_segments]): FindAlignment, the duration heuristics,
//      merge_punctuations, and the words assigned to the segments, whose start and end
//      they may move.
//
// For one window at frame `seek` of `num_frames` frames, after its segments are split:
//
//   WordSplitter splitter{tokens.eot, options.language,
//                         [&](const std::vector<int64_t>& ids) { return tokenizer.Decode(ids); }};
//   std::vector<int64_t> text = WindowTextTokens(segments, tokens.eot);
//   // the forced pass over sot_sequence + [no_timestamps] + text + [eot] (the program's
//   // align method, WhisperModel::Align): scores, and each text token's probability
//   auto path = AlignmentPath(scores, heads, input_length, 1500, num_frames, sot_length, text.size());
//   auto last = AddWordTimestamps(probs, *path, splitter, last_speech_timestamp, &segments);
//
// (long_form.cc's LongForm::AddWords.)
//
// then, as generate_segments does, seek moves to round(LastWordEnd(segments) * 100) when
// the window did not end with a single timestamp and that end is past the window's start,
// and last_speech_timestamp becomes LastWordEnd (add_word_timestamps' return value is not
// what generate_segments uses). English-only models split words as "en".
#ifndef PTEFORGE_CC_WHISPER_WORD_TIMING_H_
#define PTEFORGE_CC_WHISPER_WORD_TIMING_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/whisper/transcript_segment.h"

namespace pteforge {

// faster-whisper's transcribe() defaults: marks joined to the next word, and to the
// previous one.
inline constexpr std::string_view kPrependPunctuations = "\"'“¿([{-";
inline constexpr std::string_view kAppendPunctuations = "\"'.。,，!！?？:：”)]}、";

// (text index, encoder frame) pairs, from (0, 0) to (text_length, kept frames - 1), each
// step moving one row, one column or both.
using TokenFramePath = std::vector<std::pair<int64_t, int64_t>>;

// --- 1. The path (CTranslate2) ---------------------------------------------------------

// CTranslate2's path for one window. `scores`: the alignment heads' raw cross-attention
// scores (scaled, before the softmax), [heads, tokens, frames] row-major, tokens being the
// whole forced input (sot_sequence, no_timestamps, text, eot) and frames the encoder's
// positions (1500). Keeps the first num_frames / 2 frames (num_frames: the window's mel
// frames; none kept: an empty path), softmax over them, normalizes each frame's column
// over the tokens (LayerNorm, eps 0), median filter along the frames, mean over the heads,
// then DTW on the negated rows sot_length .. sot_length + text_length.
StatusOr<TokenFramePath> AlignmentPath(const std::vector<float>& scores, int64_t heads, int64_t tokens,
                                       int64_t frames, int64_t num_frames, int64_t sot_length,
                                       int64_t text_length, int64_t median_filter_width = 7);

// CTranslate2's ops::MedianFilter along the rows of a [rows, cols] matrix: the median of
// the `width` values centred on each, the edges reflected without repeating the edge
// value (index -1 reads 1, index cols reads cols - 2); rows of cols <= width / 2 values are
// copied as they are. `width` must be odd.
StatusOr<std::vector<float>> MedianFilter(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t width);

// CTranslate2's negative_dtw on a [rows, cols] matrix: the path maximizing the sum of the
// values it visits. Ties: diagonal or down only when strictly cheaper than both others,
// else right (even when right is the dearest of three with a tie among the other two).
TokenFramePath NegativeDtw(const std::vector<float>& x, int64_t rows, int64_t cols);

// --- 2. Words (faster-whisper's tokenizer.py and find_alignment) -----------------------

// What splitting tokens into words needs of the tokenizer.
struct WordSplitter {
  int64_t eot = 0;
  // The transcript's language: zh, ja, th, lo, my and yue split at character boundaries
  // only; the others also at spaces and punctuation.
  std::string language = "en";
  // The text of ids (all < eot) as Hugging Face tokenizers decodes them: an incomplete
  // UTF-8 sequence becomes U+FFFD (HfTextTokenizer::Decode does).
  std::function<StatusOr<std::string>(const std::vector<int64_t>&)> decode;
};

struct WordTokens {
  std::vector<std::string> words;
  std::vector<std::vector<int64_t>> tokens;  // each word's
};

// Tokenizer.split_tokens_on_unicode: a word ends wherever the text decoded so far has no
// U+FFFD but a genuine one. Ids >= eot decode to nothing (tokenizers skips special tokens).
StatusOr<WordTokens> SplitTokensOnUnicode(const std::vector<int64_t>& tokens, const WordSplitter& splitter);
// Tokenizer.split_tokens_on_spaces: those pieces joined unless one starts with a space, is
// special (>= eot), or is punctuation (stripped, a substring of string.punctuation).
StatusOr<WordTokens> SplitTokensOnSpaces(const std::vector<int64_t>& tokens, const WordSplitter& splitter);
// Tokenizer.split_to_word_tokens: one of the two, by language.
StatusOr<WordTokens> SplitToWordTokens(const std::vector<int64_t>& tokens, const WordSplitter& splitter);

// A word as find_alignment gives it: times in s from the window's start.
struct WordTiming {
  std::string word;
  std::vector<int64_t> tokens;
  double start = 0;
  double end = 0;
  double probability = 0;  // the mean of its tokens' (numpy's pairwise sum)
};

// find_alignment for one window: the words of text_tokens (all < eot) with the times at
// which the path enters their first token's row and the next word's (50 frames a second).
// No words when the text splits into fewer than one word.
StatusOr<std::vector<WordTiming>> FindAlignment(const std::vector<int64_t>& text_tokens,
                                                const std::vector<float>& text_token_probs,
                                                const TokenFramePath& path, const WordSplitter& splitter);

// merge_punctuations: a word that starts with a space and is, stripped, part of
// `prepended` joins the next word; a word that is part of `appended` joins the previous
// one unless it ends with a space. The emptied words stay, without text or tokens.
void MergePunctuations(std::vector<WordTiming>* words, std::string_view prepended = kPrependPunctuations,
                       std::string_view appended = kAppendPunctuations);

// --- 3. One window's segments (faster-whisper's add_word_timestamps) -------------------

// The window's text: every segment's tokens < eot, in order (the forced pass's text).
std::vector<int64_t> WindowTextTokens(const std::vector<TranscriptSegment>& segments, int64_t eot);

// add_word_timestamps([segments]): fills each segment's `words` (times rounded to 0.01 s
// as numpy rounds, from the window's start segments[0].seek / 100) and may move its start
// and end; `text_token_probs` and `path` are the forced pass's over
// WindowTextTokens(segments). Returns the last speech timestamp as add_word_timestamps
// does (the last segment with words' end, else `last_speech_timestamp`); note that
// generate_segments ignores it and takes LastWordEnd instead.
StatusOr<double> AddWordTimestamps(const std::vector<float>& text_token_probs, const TokenFramePath& path,
                                   const WordSplitter& splitter, double last_speech_timestamp,
                                   std::vector<TranscriptSegment>* segments,
                                   std::string_view prepended = kPrependPunctuations,
                                   std::string_view appended = kAppendPunctuations);

// The same after find_alignment: `alignment` is FindAlignment's words for the window.
double AddWordTimestamps(std::vector<WordTiming> alignment, int64_t eot, double last_speech_timestamp,
                         std::vector<TranscriptSegment>* segments,
                         std::string_view prepended = kPrependPunctuations,
                         std::string_view appended = kAppendPunctuations);

// faster-whisper's utils.get_end: the last word's end, else the last segment's end, else
// nothing.
std::optional<double> LastWordEnd(const std::vector<TranscriptSegment>& segments);

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_WORD_TIMING_H_
