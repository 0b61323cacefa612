// Errors (malformed or unsupported tokenizer.json, invalid UTF-8, unknown ids), the
// StreamDecoder on characters split across tokens, and the regex engine's semantics.
// Expected ids come from the golden tokenizers (cc/text/testdata), never from here.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cc/text/byte_level.h"
#include "cc/text/regex.h"
#include "cc/text/test_files.h"
#include "cc/text/tokenizer.h"
#include "cc/text/utf8.h"

namespace pteforge {
namespace {

// Whether `text` contains `part`, with both shown when not.
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// A minimal valid tokenizer.json with `section` ("key": value) replacing its defaults.
std::string TinyTokenizer(const std::string& sections) {
  return "{\"added_tokens\": [], " + sections +
         (sections.find("\"model\"") == std::string::npos
              ? ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 2}, \"merges\": [\"a b\"]}"
              : "") +
         "}";
}

std::string ErrorOf(const std::string& json) {
  StatusOr<Tokenizer> tokenizer = Tokenizer::FromJson(json);
  return tokenizer.ok() ? "(no error)" : tokenizer.status().message();
}

TEST(TokenizerErrors, MalformedJsonNamesTheByte) {
  EXPECT_TRUE(Contains(ErrorOf("{"), "tokenizer.json: invalid JSON at byte 1"));
  EXPECT_TRUE(Contains(ErrorOf("{\"model\": }"), "invalid JSON at byte 10: expected a value"));
  EXPECT_TRUE(Contains(ErrorOf("[1, 2"), "invalid JSON"));
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": \"\\ud800\"}"), "unpaired surrogate"));
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": \"\xff\"}"), "invalid UTF-8"));
  EXPECT_TRUE(Contains(ErrorOf(""), "unexpected end"));
  EXPECT_TRUE(Contains(ErrorOf("[1] x"), "unexpected text after the end"));
  EXPECT_TRUE(Contains(ErrorOf("[]"), "must be an object"));
}

TEST(TokenizerErrors, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRUE(Contains(ErrorOf(deep), "nested more than 512 levels"));
}

// Each section (a tokenizer.json member) and the words its error must contain.
TEST(TokenizerErrors, UnsupportedOrBadComponentsAreNamed) {
  const std::vector<std::pair<std::string, std::string>> kCases = {
      {"\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}",
       "model type 'WordPiece' is not supported; supported: BPE"},
      {"\"pre_tokenizer\": {\"type\": \"Whitespace\"}",
       "pre_tokenizer type 'Whitespace' is not supported; supported: ByteLevel, Split"},
      {"\"normalizer\": {\"type\": \"NFKC\"}",
       "normalizer type 'NFKC' is not supported; supported: NFC"},
      {"\"decoder\": {\"type\": \"WordPiece\"}",
       "decoder type 'WordPiece' is not supported"},
      {"\"post_processor\": {\"type\": \"Fancy\"}",
       "post_processor type 'Fancy' is not supported"},
      {"\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Digits\"}, {\"type\": \"Punctuation\"}]}",
       "type 'Punctuation' is not supported"},
      {"\"truncation\": {\"max_length\": 8}",
       "truncation is not supported"},
      {"\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"(?<=a)b\"}, \"behavior\": \"Isolated\"}",
       "pre_tokenizer Split: regex '(?<=a)b': lookbehind is not supported at byte"},
      {"\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"^a\"}, \"behavior\": \"Isolated\"}",
       "anchors are not supported"},
      {"\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\p{Greek}\"}, \"behavior\": \"Isolated\"}",
       "unsupported \\p{...} property"},
      {"\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"a\"}, \"behavior\": \"Sideways\"}",
       "behavior 'Sideways' is unknown"},
      {"\"model\": {\"type\": \"BPE\", \"merges\": []}",
       "model BPE: 'vocab' is missing"},
      {"\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a c\"]}",
       "merge 0 ('a' + 'c'): 'c' is not in the vocabulary"},
      {"\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"abc\"]}",
       "merge 0 is neither"},
      {"\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": \"x\"}, \"merges\": []}",
       "the id of 'a' is not a non-negative integer"},
      {"\"model\": {\"type\": \"BPE\", \"dropout\": 0.1, \"vocab\": {}, \"merges\": []}",
       "dropout 0.1 is not supported"},
      {"\"model\": {\"type\": \"BPE\", \"unk_token\": \"<unk>\", \"vocab\": {}, \"merges\": []}",
       "unk_token '<unk>' is not in the vocabulary"},
      {"\"decoder\": {\"type\": \"Strip\", \"content\": \"ab\"}",
       "decoder Strip: 'content' must be one character"},
      {"\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"use_regex\": 1}",
       "'use_regex' must be a boolean, not a number"},
  };
  for (const auto& [section, expected] : kCases) {
    EXPECT_TRUE(Contains(ErrorOf(TinyTokenizer(section)), expected)) << section;
  }
}

// Cut or corrupted tokenizer.json files give errors or work, and never crash.
TEST(TokenizerErrors, DamagedFilesNeverCrash) {
  const std::string json = ReadTestFile("llama3.tokenizer.json");
  ASSERT_FALSE(json.empty());
  for (size_t cut = 0; cut < json.size(); cut += json.size() / 97) {
    EXPECT_FALSE(Tokenizer::FromJson(json.substr(0, cut)).ok()) << cut;
  }
  uint32_t state = 12345;
  for (int trial = 0; trial < 300; ++trial) {
    std::string damaged = json;
    for (int flip = 0; flip < 3; ++flip) {
      state = state * 1664525u + 1013904223u;
      damaged[state % damaged.size()] = static_cast<char>(state >> 24);
    }
    StatusOr<Tokenizer> tokenizer = Tokenizer::FromJson(damaged);
    if (tokenizer.ok()) (void)tokenizer->Encode("Hello world, it's 2024!");
  }
}

TEST(TokenizerErrors, MinimalTokenizerWorks) {
  StatusOr<Tokenizer> tokenizer = Tokenizer::FromJson(TinyTokenizer("\"normalizer\": null"));
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
  StatusOr<std::vector<int64_t>> ids = tokenizer->Encode("abba");
  ASSERT_TRUE(ids.ok());
  // "ab" merges, the rest stays: ab, b, a (ids from the vocabulary above).
  EXPECT_EQ(*ids, (std::vector<int64_t>{*tokenizer->TokenToId("ab"), *tokenizer->TokenToId("b"),
                                        *tokenizer->TokenToId("a")}));
}

class GoldenTokenizerTest : public ::testing::Test {
 protected:
  void Load(const std::string& name) {
    auto tokenizer = Tokenizer::FromJson(ReadTestFile(name + ".tokenizer.json"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
    tokenizer_.emplace(std::move(tokenizer).value());
  }
  std::optional<Tokenizer> tokenizer_;
};

TEST_F(GoldenTokenizerTest, InvalidUtf8NamesTheByteOffset) {
  Load("gpt2");
  for (const auto& [text, offset] : std::vector<std::pair<std::string, int>>{
           {"ab\xff" "cd", 2}, {"\xe4\xb8", 0}, {"ok \xed\xa0\x80", 3}, {"\xc0\x80", 0}, {"x\xf4\x90\x80\x80", 1}}) {
    StatusOr<std::vector<int64_t>> ids = tokenizer_->Encode(text);
    ASSERT_FALSE(ids.ok());
    EXPECT_TRUE(Contains(ids.status().message(), "not valid UTF-8 at byte " + std::to_string(offset)));
  }
}

TEST_F(GoldenTokenizerTest, UnknownIdsAreErrors) {
  Load("llama3");
  const int64_t past_end = static_cast<int64_t>(tokenizer_->vocab_size()) + 1000;
  EXPECT_TRUE(Contains(tokenizer_->Decode({past_end}).status().message(), "is not in the vocabulary"));
  EXPECT_TRUE(Contains(tokenizer_->Decode({-1}).status().message(), "id -1 is not in the vocabulary"));
  StreamDecoder stream(&*tokenizer_);
  EXPECT_FALSE(stream.Push(past_end).ok());
}

// The bytes of one character given as one byte-level token each: nothing is returned
// until the character is whole.
TEST_F(GoldenTokenizerTest, StreamDecoderWaitsForWholeCharacters) {
  Load("gpt2");
  const std::string kCharacter = "\xe4\xb8\xad";  // U+4E2D
  // The byte-level alphabet's character for each byte, as tokens of the vocabulary.
  std::vector<int64_t> ids;
  for (char byte : kCharacter) {
    const std::optional<int64_t> id = tokenizer_->TokenToId(byte_level::Encode(std::string(1, byte)));
    ASSERT_TRUE(id.has_value());
    ids.push_back(*id);
  }
  ASSERT_EQ(tokenizer_->Decode(ids).value(), kCharacter);
  const std::vector<int64_t> word = tokenizer_->Encode("hello").value();
  StreamDecoder stream(&*tokenizer_);
  for (int64_t id : word) ASSERT_TRUE(stream.Push(id).ok());
  EXPECT_EQ(stream.Push(ids[0]).value(), "");
  EXPECT_EQ(stream.Push(ids[1]).value(), "");
  std::string third = stream.Push(ids[2]).value();
  EXPECT_EQ(third.substr(third.size() - kCharacter.size()), kCharacter);
  EXPECT_EQ(stream.Finish().value(), "");
}

TEST_F(GoldenTokenizerTest, StreamDecoderHoldsByteFallbackRuns) {
  Load("llama2");
  // An emoji the small vocabulary has no token for: byte-fallback tokens.
  const std::string text = "I like \xf0\x9f\xa6\x8a foxes";
  const std::vector<int64_t> ids = tokenizer_->Encode(text, false).value();
  StreamDecoder stream(&*tokenizer_);
  std::string joined;
  bool saw_byte_token_wait = false;
  for (int64_t id : ids) {
    const std::string piece = stream.Push(id).value();
    ASSERT_EQ(utf8::FirstInvalidByte(piece), piece.size());
    const std::string token = *tokenizer_->IdToToken(id);
    if (token.rfind("<0x", 0) == 0) saw_byte_token_wait = saw_byte_token_wait || piece.empty();
    joined += piece;
  }
  joined += stream.Finish().value();
  EXPECT_TRUE(saw_byte_token_wait);
  EXPECT_EQ(joined, tokenizer_->Decode(ids).value());
  EXPECT_EQ(joined, text);
}

std::vector<std::pair<size_t, size_t>> Matches(const std::string& pattern, const std::u32string& text) {
  StatusOr<Regex> regex = Regex::Compile(pattern);
  EXPECT_TRUE(regex.ok()) << regex.status().message();
  if (!regex.ok()) return {};
  auto matches = regex->FindAll(text);
  EXPECT_TRUE(matches.ok()) << matches.status().message();
  return matches.ok() ? *matches : std::vector<std::pair<size_t, size_t>>{};
}

using Spans = std::vector<std::pair<size_t, size_t>>;

TEST(RegexTest, BacktrackingSemantics) {
  // \s+(?!\S) leaves the last space to the following word.
  EXPECT_EQ(Matches(R"(\s+(?!\S)|\s+|\S+)", U"a   b"), (Spans{{0, 1}, {1, 3}, {3, 4}, {4, 5}}));
  // The first alternative that matches wins, not the longest.
  EXPECT_EQ(Matches("a|ab", U"ab"), (Spans{{0, 1}}));
  // Bounded and lazy quantifiers.
  EXPECT_EQ(Matches(R"(\p{N}{1,3})", U"12345"), (Spans{{0, 3}, {3, 5}}));
  EXPECT_EQ(Matches("a+?", U"aaa"), (Spans{{0, 1}, {1, 2}, {2, 3}}));
  // Case-insensitive groups, ſ folding to s as in Oniguruma.
  EXPECT_EQ(Matches("(?i:'s|'re)", U"'S 'rE '\u017F"), (Spans{{0, 2}, {3, 6}, {7, 9}}));
  // Repeated groups and empty matches.
  EXPECT_EQ(Matches("(?:ab)+", U"ababxab"), (Spans{{0, 4}, {5, 7}}));
  EXPECT_EQ(Matches("x*", U"ab"), (Spans{{0, 0}, {1, 1}, {2, 2}}));
  // Classes: negation, Unicode letters, ranges.
  EXPECT_EQ(Matches(R"([^\s\p{L}]+)", U"é!? 9x"), (Spans{{1, 3}, {4, 5}}));
  EXPECT_EQ(Matches("[a-c]+", U"abcd"), (Spans{{0, 3}}));
}

TEST(RegexTest, DeepGroupRepetitionIsAnError) {
  StatusOr<Regex> regex = Regex::Compile("(?:ab)+");
  ASSERT_TRUE(regex.ok());
  std::u32string text;
  for (int i = 0; i < 10000; ++i) text += U"ab";
  auto matches = regex->FindAll(text);
  ASSERT_FALSE(matches.ok());
  EXPECT_TRUE(Contains(matches.status().message(), "repeated group went past"));
}

TEST(Utf8Test, LossyReplacesMaximalSubparts) {
  EXPECT_EQ(utf8::Lossy("a\xe4\xb8" "b"), "a\xef\xbf\xbd" "b");          // one U+FFFD for a cut sequence
  EXPECT_EQ(utf8::Lossy("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd");       // never-valid bytes: one each
  EXPECT_EQ(utf8::Lossy("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  EXPECT_EQ(utf8::Lossy("ok \xf0\x9f\xa6\x8a"), "ok \xf0\x9f\xa6\x8a");
}

}  // namespace
}  // namespace pteforge
