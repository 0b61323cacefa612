// The C++ tokenizer against Python's `tokenizers` (0.23.3): for each tokenizer that
// cc/text/testdata/make_golden.py trained at build time, every text's ids (with and
// without special tokens) and decoded text (skipping special tokens and not), random id
// sequences' decoded text, the vocabulary size and the added tokens' ids must be equal.
// StreamDecoder must give the same text as Decode, in pieces of whole characters. On a
// failure the first mismatches are printed with their text escaped.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cc/text/json.h"
#include "cc/text/test_files.h"
#include "cc/text/tokenizer.h"
#include "cc/text/utf8.h"

namespace pteforge {
namespace {

constexpr const char* kTokenizers[] = {"gpt2",   "roberta",        "llama3",   "qwen2",
                                       "llama2", "metaspace_bert", "clip_like"};
constexpr int kMaxReported = 8;

// Text with control characters and non-ASCII escaped, so that mismatches in whitespace
// or invisible characters show.
std::string Escape(const std::string& text) {
  std::string out;
  for (char32_t c : utf8::Decode(utf8::Lossy(text))) {
    char buffer[16];
    if (c == '\\') out += "\\\\";
    else if (c >= 0x20 && c < 0x7F) out.push_back(static_cast<char>(c));
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else {
      std::snprintf(buffer, sizeof(buffer), c < 0x10000 ? "\\u%04X" : "\\U%08X", static_cast<unsigned>(c));
      out += buffer;
    }
  }
  return out;
}

std::string Join(const std::vector<int64_t>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? " " : "") + std::to_string(ids[i]);
  return out + "]";
}

std::vector<int64_t> Ids(const Json& array) {
  std::vector<int64_t> ids;
  for (const Json& id : array) ids.push_back(AsInt64(id));
  return ids;
}

// A string member of a golden case.
const std::string& Text(const Json& object, const char* key) {
  return FindMember(object, key)->get_ref<const std::string&>();
}

// Counts and reports mismatches of one kind.
class Mismatches {
 public:
  explicit Mismatches(std::string what) : what_(std::move(what)) {}
  ~Mismatches() {
    EXPECT_EQ(count_, 0) << count_ << " mismatches in " << what_;
  }
  void Add(const std::string& text, const std::string& expected, const std::string& actual) {
    if (++count_ <= kMaxReported) {
      ADD_FAILURE() << what_ << " for \"" << Escape(text) << "\"\n  expected: " << expected
                    << "\n  actual:   " << actual;
    }
  }

 private:
  std::string what_;
  int count_ = 0;
};

// All of StreamDecoder's pieces for `ids`; fails the test on an error or a piece that is
// not whole UTF-8 characters.
std::string StreamDecode(const Tokenizer& tokenizer, const std::vector<int64_t>& ids, bool skip_special) {
  StreamDecoder stream(&tokenizer, skip_special);
  std::string all;
  for (size_t i = 0; i <= ids.size(); ++i) {
    StatusOr<std::string> piece = i < ids.size() ? stream.Push(ids[i]) : stream.Finish();
    if (!piece.ok()) return "<error: " + piece.status().message() + ">";
    if (utf8::FirstInvalidByte(*piece) != piece->size()) return "<a piece with a split character>";
    all += *piece;
  }
  return all;
}

class GoldenTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string base = GetParam();
    auto tokenizer = Tokenizer::FromJson(ReadTestFile(base + ".tokenizer.json"));
    ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().message();
    tokenizer_.emplace(std::move(tokenizer).value());
    auto golden = ParseJson(ReadTestFile(base + ".golden.json"), "golden.json");
    ASSERT_TRUE(golden.ok()) << golden.status().message();
    golden_ = std::move(golden).value();
  }

  const Json& cases() const { return *FindMember(golden_, "cases"); }
  const Json& decode_cases() const { return *FindMember(golden_, "decode_cases"); }

  std::optional<Tokenizer> tokenizer_;
  Json golden_;
};

TEST_P(GoldenTest, VocabularyMatches) {
  EXPECT_EQ(tokenizer_->vocab_size(), static_cast<size_t>(AsInt64(*FindMember(golden_, "vocab_size"))));
  for (const auto& entry : FindMember(golden_, "token_ids")->items()) {
    EXPECT_EQ(tokenizer_->TokenToId(entry.key()), std::optional<int64_t>(AsInt64(entry.value()))) << entry.key();
  }
  for (const auto& entry : FindMember(golden_, "id_tokens")->items()) {
    EXPECT_EQ(tokenizer_->IdToToken(std::stoll(entry.key())),
              std::optional<std::string>(entry.value().get_ref<const std::string&>()))
        << entry.key();
  }
}

TEST_P(GoldenTest, EncodeMatches) {
  ASSERT_GE(cases().size(), 1000u);
  Mismatches with_special("Encode(text)"), plain("Encode(text, add_special_tokens=false)");
  for (const Json& c : cases()) {
    const std::string& text = Text(c, "text");
    for (bool add_special : {true, false}) {
      const std::vector<int64_t> expected = Ids(*FindMember(c, add_special ? "ids" : "ids_plain"));
      StatusOr<std::vector<int64_t>> ids = tokenizer_->Encode(text, add_special);
      const std::string actual = ids.ok() ? Join(*ids) : "error: " + ids.status().message();
      if (actual != Join(expected)) (add_special ? with_special : plain).Add(text, Join(expected), actual);
    }
  }
}

TEST_P(GoldenTest, DecodeMatches) {
  Mismatches skipping("Decode(ids, skip_special_tokens=true)"), keeping("Decode(ids, skip_special_tokens=false)");
  for (const Json* list : {&cases(), &decode_cases()}) {
    for (const Json& c : *list) {
      const std::vector<int64_t> ids = Ids(*FindMember(c, "ids"));
      for (bool skip : {true, false}) {
        const std::string& expected = Text(c, skip ? "decoded" : "decoded_with_special");
        StatusOr<std::string> text = tokenizer_->Decode(ids, skip);
        const std::string actual = text.ok() ? *text : "error: " + text.status().message();
        if (actual != expected) (skip ? skipping : keeping).Add(Join(ids), Escape(expected), Escape(actual));
      }
    }
  }
}

TEST_P(GoldenTest, StreamDecoderMatchesDecode) {
  Mismatches mismatches("StreamDecoder pieces joined");
  for (const Json* list : {&cases(), &decode_cases()}) {
    for (const Json& c : *list) {
      const std::vector<int64_t> ids = Ids(*FindMember(c, "ids"));
      for (bool skip : {true, false}) {
        const std::string& expected = Text(c, skip ? "decoded" : "decoded_with_special");
        const std::string actual = StreamDecode(*tokenizer_, ids, skip);
        if (actual != expected) mismatches.Add(Join(ids), Escape(expected), Escape(actual));
      }
    }
  }
}

// A long prompt (the golden texts joined, about 2,000 tokens or more) must encode in
// milliseconds; prints the time.
TEST_P(GoldenTest, LongPromptEncodesFast) {
  std::string prompt;
  for (const Json& c : cases()) {
    if (prompt.size() > 12000) break;
    prompt += Text(c, "text") + "\n";
  }
  constexpr int kRepeats = 10;
  size_t tokens = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRepeats; ++i) {
    StatusOr<std::vector<int64_t>> ids = tokenizer_->Encode(prompt);
    ASSERT_TRUE(ids.ok()) << ids.status().message();
    tokens = ids->size();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kRepeats;
  std::printf("%s: %zu bytes -> %zu tokens in %.2f ms\n", GetParam(), prompt.size(), tokens, ms);
  EXPECT_GE(tokens, 2000u);
  EXPECT_LT(ms, 100.0);
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, GoldenTest, ::testing::ValuesIn(kTokenizers),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace pteforge
