// Errors (malformed or unsupported tokenizer.json, invalid UTF-8, unknown ids), the
// StreamDecoder on characters split across tokens, and the regular expressions' and
// Unicode functions' use of Oniguruma and utf8proc as tokenizers uses them.
// Expected ids come from the golden tokenizers (cc/text/testdata), never from here.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cc/text/byte_level.h"
#include "cc/text/regex.h"
#include "cc/text/test_files.h"
#include "cc/text/tokenizer.h"
#include "cc/text/unicode.h"
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
  EXPECT_TRUE(Contains(ErrorOf("{"), "tokenizer.json: invalid JSON at byte 1 (line 1, column 2): syntax error"));
  EXPECT_TRUE(Contains(ErrorOf("{\"model\": }"), "invalid JSON at byte 10 (line 1, column 11): syntax error "
                                                 "while parsing value - unexpected '}'"));
  EXPECT_TRUE(Contains(ErrorOf("{\n\"a\": 1,\n\"b\" 2}"), "invalid JSON at byte 14 (line 3, column 5)"));
  EXPECT_TRUE(Contains(ErrorOf("[1, 2"), "invalid JSON"));
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": \"\\ud800\"}"), "surrogate U+D800..U+DBFF must be followed by"));
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": \"\xff\"}"), "ill-formed UTF-8 byte"));
  EXPECT_TRUE(Contains(ErrorOf("{\"a\": 1e999}"), "number overflow"));
  EXPECT_TRUE(Contains(ErrorOf(""), "unexpected end of input"));
  EXPECT_TRUE(Contains(ErrorOf("[1] x"), "expected end of input"));
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
      {"\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"(a\"}, \"behavior\": \"Isolated\"}",
       "pre_tokenizer Split: regex '(a': end pattern with unmatched parenthesis"},
      {"\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"\\\\p{NoSuchProperty}\"}, \"behavior\": \"Isolated\"}",
       "invalid character property name {NoSuchProperty}"},
      {"\"normalizer\": {\"type\": \"Replace\", \"pattern\": {\"Regex\": \"[b-a]\"}, \"content\": \"\"}",
       "normalizer Replace: regex '[b-a]': empty range in char class"},
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

using Spans = std::vector<std::pair<size_t, size_t>>;

// The [begin, end) byte offsets of every match of `pattern` in `text`.
Spans Matches(const std::string& pattern, const std::string& text) {
  StatusOr<Regex> regex = Regex::Compile(pattern);
  EXPECT_TRUE(regex.ok()) << regex.status().message();
  if (!regex.ok()) return {};
  auto matches = regex->FindAll(text);
  EXPECT_TRUE(matches.ok()) << matches.status().message();
  return matches.ok() ? *matches : Spans{};
}

// What tokenizers' pre-tokenizer patterns rely on, in Oniguruma's semantics.
TEST(RegexTest, PatternsMatchAsInTokenizers) {
  // \s+(?!\S) leaves the last space to the following word.
  EXPECT_EQ(Matches(R"(\s+(?!\S)|\s+|\S+)", "a   b"), (Spans{{0, 1}, {1, 3}, {3, 4}, {4, 5}}));
  // The first alternative that matches wins, not the longest.
  EXPECT_EQ(Matches("a|ab", "ab"), (Spans{{0, 1}}));
  // Bounded and lazy quantifiers.
  EXPECT_EQ(Matches(R"(\p{N}{1,3})", "12345"), (Spans{{0, 3}, {3, 5}}));
  EXPECT_EQ(Matches("a+?", "aaa"), (Spans{{0, 1}, {1, 2}, {2, 3}}));
  // Case-insensitive groups: Llama-3's contractions, with Oniguruma's case folding
  // (ſ, long s, folds to s; U+212A, Kelvin sign, to k).
  EXPECT_EQ(Matches("(?i:'s|'re)", "'S 'rE '\u017F"), (Spans{{0, 2}, {3, 6}, {7, 10}}));
  EXPECT_EQ(Matches("(?i:k)", "\u212A"), (Spans{{0, 3}}));
  // Offsets are bytes: a two-byte letter, then a run of them.
  EXPECT_EQ(Matches(R"([^\s\p{L}]+)", "\u00E9!? 9x"), (Spans{{2, 4}, {5, 6}}));
  EXPECT_EQ(Matches(R"(\p{L}+)", "\u00E9t\u00E9 \u4E2D\u6587"), (Spans{{0, 5}, {6, 12}}));
  // Empty matches: none right where the previous match ended (onig's find_iter).
  EXPECT_EQ(Matches("x*", "ab"), (Spans{{0, 0}, {1, 1}, {2, 2}}));
  EXPECT_EQ(Matches("a*", "baa"), (Spans{{0, 0}, {1, 3}}));
  // Lookbehind and script properties, which the hand-written engine refused.
  EXPECT_EQ(Matches("(?<=a)b", "abcb"), (Spans{{1, 2}}));
  EXPECT_EQ(Matches(R"(\p{Greek}+)", "a\u03B1\u03B2b"), (Spans{{1, 5}}));
}

// A pattern that backtracks exponentially stops at Oniguruma's retry limit with an
// error, instead of running for ages (tokenizers would panic).
TEST(RegexTest, CatastrophicBacktrackingIsAnError) {
  StatusOr<Regex> regex = Regex::Compile("(a|aa)+c");
  ASSERT_TRUE(regex.ok());
  auto matches = regex->FindAll(std::string(60, 'a'));
  ASSERT_FALSE(matches.ok());
  EXPECT_TRUE(Contains(matches.status().message(), "retry-limit-in-")) << matches.status().message();
}

// Deeply nested groups are a compile error, not a deep recursion.
TEST(RegexTest, DeepNestingIsAnError) {
  StatusOr<Regex> regex = Regex::Compile(std::string(5000, '(') + "a" + std::string(5000, ')'));
  ASSERT_FALSE(regex.ok());
  EXPECT_TRUE(Contains(regex.status().message(), "parse depth limit over"));
}

TEST(UnicodeTest, NormalizationAndCase) {
  EXPECT_EQ(unicode::Nfc("e\u0301").value(), "\u00E9");
  EXPECT_EQ(unicode::Nfd("\u00E9").value(), "e\u0301");
  EXPECT_EQ(unicode::Nfc("\u1100\u1161\u11A8").value(), "\uAC01");  // Hangul
  // Canonical order of combining marks (below before above).
  EXPECT_EQ(unicode::Nfd("a\u0301\u0323").value(), "a\u0323\u0301");
  // Full lowercase of U+0130 (two characters), Greek capital sigma without the
  // final-sigma rule, and a NUL kept.
  EXPECT_EQ(unicode::Lowercase("\u0130STANBUL").value(), "i\u0307stanbul");
  EXPECT_EQ(unicode::Lowercase("\u039F\u03A3").value(), "\u03BF\u03C3");
  EXPECT_EQ(unicode::Lowercase(std::string("A\0B", 3)).value(), std::string("a\0b", 3));
  EXPECT_TRUE(unicode::IsWhiteSpace(U'\u3000'));
  EXPECT_TRUE(unicode::IsWhiteSpace(U'\x85'));
  EXPECT_FALSE(unicode::IsWhiteSpace(U'\u200B'));  // zero-width space: Cf, not White_Space
  EXPECT_TRUE(unicode::IsNumber(U'\u2167'));        // Roman numeral eight: Nl
  EXPECT_EQ(unicode::MajorCategory(U'\U0001F600'), 'S');
}

TEST(Utf8Test, LossyReplacesMaximalSubparts) {
  EXPECT_EQ(utf8::Lossy("a\xe4\xb8" "b"), "a\xef\xbf\xbd" "b");          // one U+FFFD for a cut sequence
  EXPECT_EQ(utf8::Lossy("\xc0\x80"), "\xef\xbf\xbd\xef\xbf\xbd");       // never-valid bytes: one each
  EXPECT_EQ(utf8::Lossy("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate
  EXPECT_EQ(utf8::Lossy("ok \xf0\x9f\xa6\x8a"), "ok \xf0\x9f\xa6\x8a");
  EXPECT_EQ(utf8::Lossy("\xf0\x9f\xa6"), "\xef\xbf\xbd");                          // a cut 4-byte one
  EXPECT_EQ(utf8::Lossy("\xe0\x80"), "\xef\xbf\xbd\xef\xbf\xbd");                 // overlong: E0 then 80
  EXPECT_EQ(utf8::Lossy("\xf4\x90\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // past U+10FFFF
  EXPECT_EQ(utf8::Lossy("\xf5\xff"), "\xef\xbf\xbd\xef\xbf\xbd");
}

}  // namespace
}  // namespace pteforge
