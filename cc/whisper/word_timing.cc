#include "cc/whisper/word_timing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pteforge {
namespace {

constexpr double kTokensPerSecond = 50;    // the encoder's frames (find_alignment)
constexpr double kFramesPerSecond = 100;   // the mel frames (add_word_timestamps)
constexpr char32_t kReplacement = 0xFFFD;
// Python's string.punctuation.
constexpr std::string_view kAsciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
constexpr std::string_view kSentenceEndMarks = ".。!！?？";

// Python's `a in b` on strings: a substring test, the empty string being in every string.
// On valid UTF-8 a byte match is a character match.
bool IsIn(std::string_view part, std::string_view whole) { return whole.find(part) != std::string_view::npos; }

bool StartsWith(std::string_view text, char c) { return !text.empty() && text.front() == c; }
bool EndsWith(std::string_view text, char c) { return !text.empty() && text.back() == c; }

// The code points of decoded text (valid UTF-8: the tokenizer's decode replaced what was
// not); a stray byte counts as one.
std::u32string CodePoints(std::string_view text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (i + length > text.size()) length = 1;
    char32_t c = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) c = (c << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    out.push_back(c);
    i += length;
  }
  return out;
}

// Python's str.isspace.
bool IsPythonSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

size_t Utf8Length(char32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

// Python's str.strip(): Unicode whitespace off both ends.
std::string_view PythonStrip(std::string_view text) {
  const std::u32string points = CodePoints(text);
  size_t first = 0, last = points.size();
  size_t begin = 0, end = text.size();
  while (first < last && IsPythonSpace(points[first])) begin += Utf8Length(points[first++]);
  while (last > first && IsPythonSpace(points[last - 1])) end -= Utf8Length(points[--last]);
  return text.substr(begin, end - begin);
}

// numpy's round(x, 2) (np.float64.__round__: rint(x * 100) / 100, halves to even), which
// is what faster-whisper's round() calls on the numpy times; Python's own round on a float
// differs for values such as 3.785.
double RoundCentiseconds(double x) { return std::nearbyint(x * 100.0) / 100.0; }

// numpy's pairwise summation (np.add.reduce on float64), which np.mean uses.
double PairwiseSum(const double* a, size_t n) {
  if (n < 8) {
    double sum = 0.;
    for (size_t i = 0; i < n; ++i) sum += a[i];
    return sum;
  }
  if (n <= 128) {
    double r[8];
    for (size_t k = 0; k < 8; ++k) r[k] = a[k];
    size_t i = 8;
    for (; i < n - n % 8; i += 8) {
      for (size_t k = 0; k < 8; ++k) r[k] += a[i + k];
    }
    double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) sum += a[i];
    return sum;
  }
  size_t half = n / 2;
  half -= half % 8;
  return PairwiseSum(a, half) + PairwiseSum(a + half, n - half);
}

// np.median of non-empty values.
double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return (values[n / 2 - 1] + values[n / 2]) / 2;  // np.mean of the two middle values
}

std::vector<int64_t> TextOnly(const std::vector<int64_t>& tokens, int64_t eot) {
  std::vector<int64_t> text;
  for (int64_t token : tokens) {
    if (token < eot) text.push_back(token);
  }
  return text;
}

// The text of tokens as tokenizers' decode gives it with special tokens skipped (those
// of Whisper are the ids >= eot).
StatusOr<std::string> Decode(const std::vector<int64_t>& tokens, const WordSplitter& splitter) {
  return splitter.decode(TextOnly(tokens, splitter.eot));
}

}  // namespace

// --- 1. The path ---------------------------------------------------------------------

StatusOr<std::vector<float>> MedianFilter(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t width) {
  if (width < 1 || width % 2 == 0) {
    return Failure(Error::InvalidArgument, "MedianFilter: the width must be odd, not %lld",
                   static_cast<long long>(width));
  }
  if (rows < 0 || cols < 0 || static_cast<int64_t>(x.size()) != rows * cols) {
    return Failure(Error::InvalidArgument, "MedianFilter: %zu values are not %lld x %lld", x.size(),
                   static_cast<long long>(rows), static_cast<long long>(cols));
  }
  const int64_t rank = width / 2;
  if (cols <= rank) return x;  // CTranslate2 passes such rows through
  std::vector<float> out(x.size());
  std::vector<float> window(width);
  for (int64_t i = 0; i < rows; ++i) {
    const float* in = x.data() + i * cols;
    for (int64_t j = 0; j < cols; ++j) {
      for (int64_t k = -rank; k <= rank; ++k) {
        int64_t read = std::abs(j + k);
        if (read >= cols) read = cols - (read - cols) - 2;
        window[k + rank] = in[read];
      }
      std::nth_element(window.begin(), window.begin() + rank, window.end());
      out[i * cols + j] = window[rank];
    }
  }
  return out;
}

TokenFramePath NegativeDtw(const std::vector<float>& x, int64_t rows, int64_t cols) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const int64_t n = rows, m = cols;
  std::vector<std::vector<float>> cost(n + 1, std::vector<float>(m + 1, kInf));
  std::vector<std::vector<int>> trace(n + 1, std::vector<int>(m + 1, -1));
  cost[0][0] = 0;
  for (int64_t j = 1; j <= m; ++j) {
    for (int64_t i = 1; i <= n; ++i) {
      const float c0 = cost[i - 1][j - 1], c1 = cost[i - 1][j], c2 = cost[i][j - 1];
      float c;
      int t;
      if (c0 < c1 && c0 < c2) {
        c = c0, t = 0;
      } else if (c1 < c0 && c1 < c2) {
        c = c1, t = 1;
      } else {
        c = c2, t = 2;
      }
      cost[i][j] = -x[(i - 1) * m + (j - 1)] + c;
      trace[i][j] = t;
    }
  }
  // The backtrace: the first row only moves right, the first column only up.
  for (int64_t k = 0; k <= m; ++k) trace[0][k] = 2;
  for (int64_t k = 0; k <= n; ++k) trace[k][0] = 1;
  TokenFramePath path;
  int64_t i = n, j = m;
  while (i > 0 || j > 0) {
    path.emplace_back(i - 1, j - 1);
    const int t = trace[i][j];
    if (t == 0) {
      --i, --j;
    } else if (t == 1) {
      --i;
    } else {
      --j;
    }
  }
  std::reverse(path.begin(), path.end());
  return path;
}

StatusOr<TokenFramePath> AlignmentPath(const std::vector<float>& scores, int64_t heads, int64_t tokens,
                                       int64_t frames, int64_t num_frames, int64_t sot_length,
                                       int64_t text_length, int64_t median_filter_width) {
  if (heads < 1 || tokens < 1 || frames < 1 || static_cast<int64_t>(scores.size()) != heads * tokens * frames) {
    return Failure(Error::InvalidArgument, "AlignmentPath: %zu scores are not [%lld heads, %lld tokens, %lld frames]",
                   scores.size(), static_cast<long long>(heads), static_cast<long long>(tokens),
                   static_cast<long long>(frames));
  }
  if (sot_length < 0 || text_length < 0 || sot_length + text_length + 1 > tokens) {
    return Failure(Error::InvalidArgument, "AlignmentPath: rows %lld..%lld are past the %lld tokens",
                   static_cast<long long>(sot_length), static_cast<long long>(sot_length + text_length),
                   static_cast<long long>(tokens));
  }
  // The second convolution's stride of 2: the encoder frames that saw the window's audio.
  const int64_t kept = num_frames / 2;
  if (kept > frames || kept < 0) {
    return Failure(Error::InvalidArgument, "AlignmentPath: %lld mel frames are more than the %lld encoder frames cover",
                   static_cast<long long>(num_frames), static_cast<long long>(frames));
  }
  if (kept == 0) return TokenFramePath();

  // Softmax over the kept frames, as CTranslate2's kernel: exp(x - max) scaled by 1 / sum.
  std::vector<float> probs(heads * tokens * kept);
  for (int64_t row = 0; row < heads * tokens; ++row) {
    const float* in = scores.data() + row * frames;
    float* out = probs.data() + row * kept;
    const float max = *std::max_element(in, in + kept);
    float sum = 0;
    for (int64_t f = 0; f < kept; ++f) sum += out[f] = std::exp(in[f] - max);
    const float scale = 1.f / sum;
    for (int64_t f = 0; f < kept; ++f) out[f] *= scale;
  }
  // LayerNorm(-2, eps 0): each head's each frame normalized over the tokens (the variance
  // as E[x^2] - E[x]^2, never below 0).
  for (int64_t h = 0; h < heads; ++h) {
    float* head = probs.data() + h * tokens * kept;
    for (int64_t f = 0; f < kept; ++f) {
      float sum = 0, sum_squares = 0;
      for (int64_t t = 0; t < tokens; ++t) {
        const float v = head[t * kept + f];
        sum += v, sum_squares += v * v;
      }
      const float mean = sum / tokens;
      const float variance = std::max(sum_squares / tokens - mean * mean, 0.f);
      const float rstd = 1.f / std::sqrt(variance);
      for (int64_t t = 0; t < tokens; ++t) head[t * kept + f] = (head[t * kept + f] - mean) * rstd;
    }
  }
  StatusOr<std::vector<float>> filtered = MedianFilter(probs, heads * tokens, kept, median_filter_width);
  if (!filtered.ok()) return filtered.status();
  // The mean over the heads, of the rows from the no-timestamps token's to the last text
  // token's.
  const int64_t rows = text_length + 1;
  std::vector<float> matrix(rows * kept);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t f = 0; f < kept; ++f) {
      float sum = 0;
      for (int64_t h = 0; h < heads; ++h) sum += (*filtered)[(h * tokens + sot_length + r) * kept + f];
      matrix[r * kept + f] = sum / static_cast<float>(heads);
    }
  }
  return NegativeDtw(matrix, rows, kept);
}

// --- 2. Words --------------------------------------------------------------------------

StatusOr<WordTokens> SplitTokensOnUnicode(const std::vector<int64_t>& tokens, const WordSplitter& splitter) {
  StatusOr<std::string> full_text = Decode(tokens, splitter);
  if (!full_text.ok()) return full_text.status();
  const std::u32string full = CodePoints(*full_text);
  WordTokens out;
  std::vector<int64_t> current;
  size_t offset = 0;  // code points, as Python indexes strings
  for (int64_t token : tokens) {
    current.push_back(token);
    StatusOr<std::string> decoded = Decode(current, splitter);
    if (!decoded.ok()) return decoded.status();
    const std::u32string points = CodePoints(*decoded);
    const size_t replacement = points.find(kReplacement);
    // Complete unless it holds a U+FFFD the whole text does not have there (a character
    // whose bytes are still to come).
    if (replacement == std::u32string::npos ||
        (replacement + offset < full.size() && full[replacement + offset] == kReplacement)) {
      out.words.push_back(std::move(*decoded));
      out.tokens.push_back(std::move(current));
      current.clear();
      offset += points.size();
    }
  }
  return out;
}

StatusOr<WordTokens> SplitTokensOnSpaces(const std::vector<int64_t>& tokens, const WordSplitter& splitter) {
  StatusOr<WordTokens> pieces = SplitTokensOnUnicode(tokens, splitter);
  if (!pieces.ok()) return pieces.status();
  WordTokens out;
  for (size_t i = 0; i < pieces->words.size(); ++i) {
    const std::string& piece = pieces->words[i];
    std::vector<int64_t>& piece_tokens = pieces->tokens[i];
    const bool special = piece_tokens[0] >= splitter.eot;
    const bool with_space = StartsWith(piece, ' ');
    const bool punctuation = IsIn(PythonStrip(piece), kAsciiPunctuation);
    if (special || with_space || punctuation || out.words.empty()) {
      out.words.push_back(piece);
      out.tokens.push_back(std::move(piece_tokens));
    } else {
      out.words.back() += piece;
      out.tokens.back().insert(out.tokens.back().end(), piece_tokens.begin(), piece_tokens.end());
    }
  }
  return out;
}

StatusOr<WordTokens> SplitToWordTokens(const std::vector<int64_t>& tokens, const WordSplitter& splitter) {
  static const char* const kWithoutSpaces[] = {"zh", "ja", "th", "lo", "my", "yue"};
  for (const char* language : kWithoutSpaces) {
    if (splitter.language == language) return SplitTokensOnUnicode(tokens, splitter);
  }
  return SplitTokensOnSpaces(tokens, splitter);
}

StatusOr<std::vector<WordTiming>> FindAlignment(const std::vector<int64_t>& text_tokens,
                                                const std::vector<float>& text_token_probs,
                                                const TokenFramePath& path, const WordSplitter& splitter) {
  if (text_tokens.empty()) return std::vector<WordTiming>();
  std::vector<int64_t> with_eot = text_tokens;
  with_eot.push_back(splitter.eot);
  StatusOr<WordTokens> split = SplitToWordTokens(with_eot, splitter);
  if (!split.ok()) return split.status();
  if (split->tokens.size() <= 1) return std::vector<WordTiming>();  // the eot alone

  // Where each word starts in the text (the last, the eot's, only ends the one before).
  std::vector<size_t> boundaries = {0};
  for (size_t w = 0; w + 1 < split->tokens.size(); ++w) {
    boundaries.push_back(boundaries.back() + split->tokens[w].size());
  }
  // The frames at which the path enters a new text row.
  std::vector<double> jump_times;
  for (size_t k = 0; k < path.size(); ++k) {
    if (k == 0 || path[k].first != path[k - 1].first) jump_times.push_back(path[k].second / kTokensPerSecond);
  }
  if (boundaries.back() >= jump_times.size() || boundaries.back() > text_token_probs.size()) {
    return Failure(Error::InvalidArgument,
                   "FindAlignment: %zu text tokens, but the path has %zu rows and there are %zu probabilities",
                   boundaries.back(), jump_times.size(), text_token_probs.size());
  }
  // zip() stops at the shortest: the words but the eot.
  std::vector<WordTiming> words;
  for (size_t w = 0; w + 1 < boundaries.size(); ++w) {
    WordTiming word;
    word.word = split->words[w];
    word.tokens = split->tokens[w];
    word.start = jump_times[boundaries[w]];
    word.end = jump_times[boundaries[w + 1]];
    const std::vector<double> probs(text_token_probs.begin() + boundaries[w],
                                    text_token_probs.begin() + boundaries[w + 1]);
    word.probability = PairwiseSum(probs.data(), probs.size()) / static_cast<double>(probs.size());
    words.push_back(std::move(word));
  }
  return words;
}

void MergePunctuations(std::vector<WordTiming>* words, std::string_view prepended, std::string_view appended) {
  std::vector<WordTiming>& w = *words;
  // Prepended marks, from the end: each joins the nearest following word not emptied.
  for (int64_t i = static_cast<int64_t>(w.size()) - 2, j = static_cast<int64_t>(w.size()) - 1; i >= 0; --i) {
    WordTiming& previous = w[i];
    WordTiming& following = w[j];
    if (StartsWith(previous.word, ' ') && IsIn(PythonStrip(previous.word), prepended)) {
      following.word = previous.word + following.word;
      previous.tokens.insert(previous.tokens.end(), following.tokens.begin(), following.tokens.end());
      following.tokens = std::move(previous.tokens);
      previous.word.clear();
      previous.tokens.clear();
    } else {
      j = i;
    }
  }
  // Appended marks, from the start: each joins the nearest previous word not emptied.
  for (size_t i = 0, j = 1; j < w.size(); ++j) {
    WordTiming& previous = w[i];
    WordTiming& following = w[j];
    if (!EndsWith(previous.word, ' ') && IsIn(following.word, appended)) {
      previous.word += following.word;
      previous.tokens.insert(previous.tokens.end(), following.tokens.begin(), following.tokens.end());
      following.word.clear();
      following.tokens.clear();
    } else {
      i = j;
    }
  }
}

// --- 3. One window's segments ----------------------------------------------------------

std::vector<int64_t> WindowTextTokens(const std::vector<TranscriptSegment>& segments, int64_t eot) {
  std::vector<int64_t> text;
  for (const TranscriptSegment& segment : segments) {
    const std::vector<int64_t> own = TextOnly(segment.tokens, eot);
    text.insert(text.end(), own.begin(), own.end());
  }
  return text;
}

StatusOr<double> AddWordTimestamps(const std::vector<float>& text_token_probs, const TokenFramePath& path,
                                   const WordSplitter& splitter, double last_speech_timestamp,
                                   std::vector<TranscriptSegment>* segments, std::string_view prepended,
                                   std::string_view appended) {
  if (segments->empty()) return last_speech_timestamp;
  StatusOr<std::vector<WordTiming>> aligned =
      FindAlignment(WindowTextTokens(*segments, splitter.eot), text_token_probs, path, splitter);
  if (!aligned.ok()) return aligned.status();
  return AddWordTimestamps(std::move(*aligned), splitter.eot, last_speech_timestamp, segments, prepended, appended);
}

double AddWordTimestamps(std::vector<WordTiming> alignment, int64_t eot, double last_speech_timestamp,
                         std::vector<TranscriptSegment>* segments, std::string_view prepended,
                         std::string_view appended) {
  if (segments->empty()) return last_speech_timestamp;

  std::vector<double> durations;
  for (const WordTiming& word : alignment) {
    if (word.end - word.start != 0) durations.push_back(word.end - word.start);
  }
  const double median_duration = std::min(0.7, durations.empty() ? 0.0 : Median(durations));
  const double max_duration = median_duration * 2;
  // Long words at sentence ends are cut to twice the median.
  if (!durations.empty()) {
    for (size_t i = 1; i < alignment.size(); ++i) {
      if (alignment[i].end - alignment[i].start > max_duration) {
        if (IsIn(alignment[i].word, kSentenceEndMarks)) {
          alignment[i].end = alignment[i].start + max_duration;
        } else if (IsIn(alignment[i - 1].word, kSentenceEndMarks)) {
          alignment[i].start = alignment[i].end - max_duration;
        }
      }
    }
  }
  MergePunctuations(&alignment, prepended, appended);

  const double time_offset = static_cast<double>(segments->front().seek) / kFramesPerSecond;
  size_t word_index = 0;
  for (TranscriptSegment& segment : *segments) {
    const size_t text_count = TextOnly(segment.tokens, eot).size();
    size_t saved_tokens = 0;
    std::vector<Word> words;
    // Words until the segment's text tokens are used up (a word may carry more).
    while (word_index < alignment.size() && saved_tokens < text_count) {
      const WordTiming& timing = alignment[word_index];
      if (!timing.word.empty()) {
        words.push_back(Word{timing.word, RoundCentiseconds(time_offset + timing.start),
                             RoundCentiseconds(time_offset + timing.end), timing.probability});
      }
      saved_tokens += timing.tokens.size();
      ++word_index;
    }
    if (!words.empty()) {
      // The first and second words after a pause: not longer than twice the median.
      if (words[0].end - last_speech_timestamp > median_duration * 4 &&
          (words[0].end - words[0].start > max_duration ||
           (words.size() > 1 && words[1].end - words[0].start > max_duration * 2))) {
        if (words.size() > 1 && words[1].end - words[1].start > max_duration) {
          const double boundary = std::max(words[1].end / 2, words[1].end - max_duration);
          words[0].end = words[1].start = boundary;
        }
        words[0].start = std::max(0.0, words[0].end - max_duration);
      }
      // The segment's own start when its first word is too long, else the word's.
      if (segment.start < words[0].end && segment.start - 0.5 > words[0].start) {
        words[0].start = std::max(0.0, std::min(words[0].end - median_duration, segment.start));
      } else {
        segment.start = words[0].start;
      }
      // The same at the end.
      if (segment.end > words.back().start && segment.end + 0.5 < words.back().end) {
        words.back().end = std::max(words.back().start + median_duration, segment.end);
      } else {
        segment.end = words.back().end;
      }
      last_speech_timestamp = segment.end;
    }
    segment.words = std::move(words);
  }
  return last_speech_timestamp;
}

std::optional<double> LastWordEnd(const std::vector<TranscriptSegment>& segments) {
  for (auto segment = segments.rbegin(); segment != segments.rend(); ++segment) {
    if (!segment->words.empty()) return segment->words.back().end;
  }
  if (segments.empty()) return std::nullopt;
  return segments.back().end;
}

}  // namespace pteforge
