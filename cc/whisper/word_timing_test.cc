#include "cc/whisper/word_timing.h"

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>

#include "cc/text/tokenizer.h"
#include "gtest/gtest.h"
#include "tools/cpp/runfiles/runfiles.h"

namespace pteforge {
namespace {

// --- The goldens' shapes (testdata/word_timing_golden.inc, gen_word_timing_golden.py) ---

struct SplitCase {
  std::string name, language;
  std::vector<int64_t> tokens;  // text; the eot is appended, as find_alignment does
  std::vector<std::string> words;
  std::vector<std::vector<int64_t>> word_tokens;
};

struct GoldenWord {
  std::string word;
  std::vector<int64_t> tokens;
  double start, end, probability;
};

struct AlignmentCase {
  std::string name, language;
  std::vector<int64_t> tokens;
  std::vector<float> probs;
  std::string path;  // steps from (0, 0): r next frame, d next row, b both
  std::vector<GoldenWord> words;
};

struct MergeWord {
  std::string word;
  std::vector<int64_t> tokens;
};

struct MergeCase {
  std::string prepend, append;
  std::vector<MergeWord> before, after;
};

struct SegmentIn {
  int64_t seek;
  double start, end;
  std::vector<int64_t> tokens;
};

struct TimedWord {
  std::string word;
  double start, end, probability;
};

struct SegmentOut {
  double start, end;
  std::vector<TimedWord> words;
};

struct WindowCase {
  std::string name, language;
  std::vector<SegmentIn> segments;
  std::vector<float> probs;
  std::string path;
  double last_speech_timestamp, returned, last_word_end;
  std::vector<SegmentOut> out;
};

struct HeuristicCase {
  std::string name;
  std::vector<GoldenWord> alignment;  // what find_alignment gave
  std::vector<SegmentIn> segments;
  double last_speech_timestamp, returned, last_word_end;
  std::vector<SegmentOut> out;
};

#include "cc/whisper/testdata/word_timing_golden.inc"

TokenFramePath Expand(const std::string& steps) {
  TokenFramePath path = {{0, 0}};
  for (char step : steps) {
    auto [row, frame] = path.back();
    if (step != 'r') ++row;
    if (step != 'd') ++frame;
    path.emplace_back(row, frame);
  }
  return path;
}

std::vector<TranscriptSegment> Segments(const std::vector<SegmentIn>& in) {
  std::vector<TranscriptSegment> segments;
  for (const SegmentIn& s : in) {
    TranscriptSegment segment;
    segment.seek = s.seek, segment.start = s.start, segment.end = s.end, segment.tokens = s.tokens;
    segments.push_back(segment);
  }
  return segments;
}

void ExpectSegments(const std::vector<TranscriptSegment>& segments, const std::vector<SegmentOut>& out,
                    const std::string& name) {
  ASSERT_EQ(segments.size(), out.size()) << name;
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(segments[i].start, out[i].start) << name << " segment " << i;
    EXPECT_EQ(segments[i].end, out[i].end) << name << " segment " << i;
    ASSERT_EQ(segments[i].words.size(), out[i].words.size()) << name << " segment " << i;
    for (size_t w = 0; w < out[i].words.size(); ++w) {
      const Word& word = segments[i].words[w];
      const TimedWord& golden = out[i].words[w];
      EXPECT_EQ(word.word, golden.word) << name << " segment " << i << " word " << w;
      EXPECT_EQ(word.start, golden.start) << name << " segment " << i << " word " << w;
      EXPECT_EQ(word.end, golden.end) << name << " segment " << i << " word " << w;
      EXPECT_EQ(word.probability, golden.probability) << name << " segment " << i << " word " << w;
    }
  }
}

// The tokenizer the goldens were made with, decoding as HfTextTokenizer::Decode does.
class WordTimingGolden : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    std::unique_ptr<bazel::tools::cpp::runfiles::Runfiles> runfiles(
        bazel::tools::cpp::runfiles::Runfiles::CreateForTest(&error));
    ASSERT_TRUE(runfiles) << error;
    std::ifstream in(runfiles->Rlocation("pteforge/cc/whisper/testdata/word_timing_tokenizer.json"));
    std::stringstream json;
    json << in.rdbuf();
    StatusOr<Tokenizer> tokenizer = Tokenizer::FromJson(json.str());
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
    tokenizer_ = std::make_shared<Tokenizer>(*tokenizer);
    ASSERT_EQ(tokenizer_->TokenToId("<|endoftext|>"), kEot);
  }

  WordSplitter Splitter(const std::string& language) const {
    std::shared_ptr<Tokenizer> tokenizer = tokenizer_;
    return WordSplitter{kEot, language, [tokenizer](const std::vector<int64_t>& ids) {
                          return tokenizer->Decode(ids, /*skip_special_tokens=*/true);
                        }};
  }

  std::shared_ptr<Tokenizer> tokenizer_;
};

TEST_F(WordTimingGolden, DecodeReplacesAnIncompleteCharacterAsTokenizersDoes) {
  // "日" is three bytes; the test tokenizer has no token for it, so its first byte's
  // token alone is an incomplete sequence: one U+FFFD, as Rust's from_utf8_lossy gives.
  StatusOr<std::vector<int64_t>> ids = tokenizer_->Encode("日", /*add_special_tokens=*/false);
  ASSERT_TRUE(ids.ok());
  ASSERT_GT(ids->size(), 1u);
  StatusOr<std::string> first = tokenizer_->Decode({ids->front()});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, "\xEF\xBF\xBD");
}

TEST_F(WordTimingGolden, SplitToWordTokensEqualsFasterWhispers) {
  ASSERT_GE(kSplitCases.size(), 10u);
  for (const SplitCase& c : kSplitCases) {
    std::vector<int64_t> tokens = c.tokens;
    tokens.push_back(kEot);
    StatusOr<WordTokens> split = SplitToWordTokens(tokens, Splitter(c.language));
    ASSERT_TRUE(split.ok()) << c.name << ": " << split.status().ToString();
    EXPECT_EQ(split->words, c.words) << c.name;
    EXPECT_EQ(split->tokens, c.word_tokens) << c.name;
  }
}

TEST_F(WordTimingGolden, FindAlignmentEqualsFasterWhispers) {
  for (const AlignmentCase& c : kAlignmentCases) {
    StatusOr<std::vector<WordTiming>> words = FindAlignment(c.tokens, c.probs, Expand(c.path), Splitter(c.language));
    ASSERT_TRUE(words.ok()) << c.name << ": " << words.status().ToString();
    ASSERT_EQ(words->size(), c.words.size()) << c.name;
    for (size_t i = 0; i < c.words.size(); ++i) {
      EXPECT_EQ((*words)[i].word, c.words[i].word) << c.name << " word " << i;
      EXPECT_EQ((*words)[i].tokens, c.words[i].tokens) << c.name << " word " << i;
      EXPECT_EQ((*words)[i].start, c.words[i].start) << c.name << " word " << i;
      EXPECT_EQ((*words)[i].end, c.words[i].end) << c.name << " word " << i;
      EXPECT_EQ((*words)[i].probability, c.words[i].probability) << c.name << " word " << i;
    }
  }
}

TEST(WordTiming, MergePunctuationsEqualsFasterWhispers) {
  ASSERT_GE(kMergeCases.size(), 8u);
  for (size_t n = 0; n < kMergeCases.size(); ++n) {
    const MergeCase& c = kMergeCases[n];
    std::vector<WordTiming> words;
    for (const MergeWord& w : c.before) words.push_back(WordTiming{w.word, w.tokens});
    MergePunctuations(&words, c.prepend, c.append);
    ASSERT_EQ(words.size(), c.after.size()) << "case " << n;
    for (size_t i = 0; i < words.size(); ++i) {
      EXPECT_EQ(words[i].word, c.after[i].word) << "case " << n << " word " << i;
      EXPECT_EQ(words[i].tokens, c.after[i].tokens) << "case " << n << " word " << i;
    }
  }
}

TEST_F(WordTimingGolden, AddWordTimestampsEqualsFasterWhispersFromThePath) {
  ASSERT_GE(kWindowCases.size(), 20u);
  for (const WindowCase& c : kWindowCases) {
    std::vector<TranscriptSegment> segments = Segments(c.segments);
    StatusOr<double> returned =
        AddWordTimestamps(c.probs, Expand(c.path), Splitter(c.language), c.last_speech_timestamp, &segments);
    ASSERT_TRUE(returned.ok()) << c.name << ": " << returned.status().ToString();
    EXPECT_EQ(*returned, c.returned) << c.name;
    ExpectSegments(segments, c.out, c.name);
    EXPECT_EQ(LastWordEnd(segments), c.last_word_end) << c.name;
  }
}

TEST(WordTiming, AddWordTimestampsEqualsFasterWhispersFromWords) {
  ASSERT_GE(kHeuristicCases.size(), 20u);
  for (const HeuristicCase& c : kHeuristicCases) {
    std::vector<WordTiming> alignment;
    for (const GoldenWord& w : c.alignment) alignment.push_back({w.word, w.tokens, w.start, w.end, w.probability});
    std::vector<TranscriptSegment> segments = Segments(c.segments);
    const double returned = AddWordTimestamps(alignment, kEot, c.last_speech_timestamp, &segments);
    EXPECT_EQ(returned, c.returned) << c.name;
    ExpectSegments(segments, c.out, c.name);
    EXPECT_EQ(LastWordEnd(segments), c.last_word_end) << c.name;
  }
}

TEST(WordTiming, TimesRoundAsNumpyDoesNotAsPythonFloats) {
  // 3.785 is 3.78500000000000014...: Python's round(3.785, 2) gives 3.79; numpy's (which
  // faster-whisper's times take, being numpy floats) is rint(3.785 * 100) / 100, and
  // 3.785 * 100 rounds to 378.5 exactly, a half going to the even 378: 3.78. And 3.795
  // (3.79499999...) gives 3.79 in Python, rint(379.5) / 100 = 3.8 in numpy.
  TranscriptSegment segment;
  segment.seek = 0, segment.start = 0, segment.end = 10, segment.tokens = {1};
  std::vector<TranscriptSegment> segments = {segment};
  // (A last speech timestamp just before: no pause, so the word keeps its times.)
  AddWordTimestamps({WordTiming{" a", {1}, 3.785, 3.795, 1}}, kEot, 3.79, &segments);
  ASSERT_EQ(segments[0].words.size(), 1u);
  EXPECT_EQ(segments[0].words[0].start, 3.78);
  EXPECT_EQ(segments[0].words[0].end, 3.8);
}

TEST(WordTiming, LastWordEndFallsBackToTheLastSegmentsEnd) {
  EXPECT_EQ(LastWordEnd({}), std::nullopt);
  TranscriptSegment with_words, without;
  with_words.end = 5, with_words.words = {Word{" a", 1, 2, 0.5}};
  without.end = 7;
  EXPECT_EQ(LastWordEnd({with_words, without}), 2.0);
  EXPECT_EQ(LastWordEnd({without}), 7.0);
}

// --- CTranslate2's part, on cases small enough to check by hand ---------------------------

TEST(WordTiming, MedianFilterReflectsWithoutRepeatingTheEdge) {
  StatusOr<std::vector<float>> three = MedianFilter({1, 2, 3, 4, 5}, 1, 5, 3);
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(*three, (std::vector<float>{2, 2, 3, 4, 4}));  // edges read [2 1 2], [4 5 4]
  // Two rows, each filtered alone; width 5 reads indices -2..2 as 2 1 0 1 2.
  StatusOr<std::vector<float>> five = MedianFilter({5, 1, 4, 2, 3, 0, 0, 9, 0, 0}, 2, 5, 5);
  ASSERT_TRUE(five.ok());
  EXPECT_EQ(*five, (std::vector<float>{4, 2, 3, 2, 3, 0, 0, 0, 0, 0}));
  // Rows no longer than half the width pass through, as in CTranslate2.
  StatusOr<std::vector<float>> short_rows = MedianFilter({3, 1, 2}, 1, 3, 7);
  ASSERT_TRUE(short_rows.ok());
  EXPECT_EQ(*short_rows, (std::vector<float>{3, 1, 2}));
  EXPECT_FALSE(MedianFilter({1, 2, 3, 4}, 1, 4, 2).ok());  // CTranslate2 overruns its window
  EXPECT_FALSE(MedianFilter({1, 2, 3}, 2, 2, 1).ok());
}

TEST(WordTiming, NegativeDtwFollowsTheMostAttendedFrames) {
  // Row 0 attends frames 0-1, row 1 frames 2-4 (and shuns the others).
  const std::vector<float> x = {1, 1, -1, -1, -1,  //
                                -1, -1, 1, 1, 1};
  EXPECT_EQ(NegativeDtw(x, 2, 5), (TokenFramePath{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {1, 4}}));
  EXPECT_EQ(NegativeDtw({0.5f}, 1, 1), (TokenFramePath{{0, 0}}));
  // More rows than frames: the path goes down.
  EXPECT_EQ(NegativeDtw({1, 1, 1}, 3, 1), (TokenFramePath{{0, 0}, {1, 0}, {2, 0}}));
}

TEST(WordTiming, NegativeDtwTiesGoRightEvenWhenRightIsDearest) {
  // At the last cell the diagonal and the move down both cost -1 and the move right 0:
  // neither is strictly cheapest, so CTranslate2 (and openai-whisper) take the right move.
  //   cost[1][1] = -1, cost[1][2] = -1 (x[0][1] = 0), cost[2][1] = -1 + 1 = 0.
  const std::vector<float> x = {1, 0,  //
                                -1, 5};
  EXPECT_EQ(NegativeDtw(x, 2, 2), (TokenFramePath{{0, 0}, {1, 0}, {1, 1}}));
  // All equal: every tie goes right, then down the first column.
  EXPECT_EQ(NegativeDtw({0, 0, 0, 0}, 2, 2), (TokenFramePath{{0, 0}, {1, 0}, {1, 1}}));
}

// Scores for [1 head, `tokens`, `frames`] where text row r (after sot_length rows) attends
// frames [2r, 2r + 2) strongly.
std::vector<float> DiagonalScores(int64_t tokens, int64_t frames, int64_t sot_length) {
  std::vector<float> scores(tokens * frames, 0.f);
  for (int64_t t = sot_length; t < tokens; ++t) {
    for (int64_t f = 2 * (t - sot_length); f < std::min(frames, 2 * (t - sot_length) + 2); ++f) {
      scores[t * frames + f] = 8.f;
    }
  }
  return scores;
}

TEST(WordTiming, AlignmentPathFollowsTheHeadsOverTheKeptFrames) {
  // sot (1) + no_timestamps + 2 text tokens + eot = 5 tokens; 12 mel frames keep 6 of the 10.
  const int64_t tokens = 5, frames = 10, sot_length = 1, text_length = 2;
  std::vector<float> scores = DiagonalScores(tokens, frames, sot_length);
  StatusOr<TokenFramePath> path = AlignmentPath(scores, 1, tokens, frames, 12, sot_length, text_length, 1);
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  EXPECT_EQ(*path, (TokenFramePath{{0, 0}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {2, 5}}));
  // Two identical heads average to the same; the median filter of 7 over 6 frames keeps it.
  std::vector<float> two_heads = scores;
  two_heads.insert(two_heads.end(), scores.begin(), scores.end());
  StatusOr<TokenFramePath> averaged = AlignmentPath(two_heads, 2, tokens, frames, 12, sot_length, text_length);
  ASSERT_TRUE(averaged.ok()) << averaged.status().ToString();
  EXPECT_EQ(averaged->back(), (std::pair<int64_t, int64_t>{2, 5}));
  EXPECT_EQ(averaged->front(), (std::pair<int64_t, int64_t>{0, 0}));
}

// CTranslate2's align on the tiny random Whisper of //models/whisper:tiny_long_ct2, the
// scores being the same model's alignment heads in transformers (gen_alignment_path_golden.py).
struct AlignmentPathCase {
  int64_t heads, tokens, num_frames, sot_length, text_length;
  std::vector<float> scores;  // [heads, tokens, num_frames / 2]
  TokenFramePath path;
};

const std::vector<AlignmentPathCase> kAlignmentPathCases = {
#include "cc/whisper/alignment_path_golden.inc"
};

TEST(WordTiming, AlignmentPathEqualsCTranslate2s) {
  ASSERT_GE(kAlignmentPathCases.size(), 5u);
  for (const AlignmentPathCase& c : kAlignmentPathCases) {
    StatusOr<TokenFramePath> path = AlignmentPath(c.scores, c.heads, c.tokens, c.num_frames / 2, c.num_frames,
                                                  c.sot_length, c.text_length);
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    EXPECT_EQ(*path, c.path) << c.num_frames << " frames, " << c.text_length << " text tokens";
  }
}

TEST(WordTiming, AlignmentPathIsEmptyWithoutFramesAndChecksShapes) {
  std::vector<float> scores = DiagonalScores(5, 10, 1);
  StatusOr<TokenFramePath> none = AlignmentPath(scores, 1, 5, 10, 1, 1, 2);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(AlignmentPath(scores, 2, 5, 10, 12, 1, 2).ok());  // not 2 heads' worth
  EXPECT_FALSE(AlignmentPath(scores, 1, 5, 10, 12, 1, 4).ok());  // rows past the tokens
  EXPECT_FALSE(AlignmentPath(scores, 1, 5, 10, 22, 1, 2).ok());  // 11 frames kept of 10
}

TEST_F(WordTimingGolden, FindAlignmentRejectsAPathShorterThanTheText) {
  StatusOr<std::vector<int64_t>> ids = tokenizer_->Encode(" Hello world", /*add_special_tokens=*/false);
  ASSERT_TRUE(ids.ok());
  std::vector<float> probs(ids->size(), 0.5f);
  EXPECT_FALSE(FindAlignment(*ids, probs, TokenFramePath(), Splitter("en")).ok());
  EXPECT_TRUE(FindAlignment({}, {}, TokenFramePath(), Splitter("en"))->empty());
}

}  // namespace
}  // namespace pteforge
