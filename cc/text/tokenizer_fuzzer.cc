// libFuzzer target: damaged tokenizer.json files and hostile texts through the whole
// tokenizer.
//
// An input is a tokenizer.json, then optionally a NUL byte and a text (JSON has no raw
// NUL, so the first one ends the file). Tokenizer::FromJson must load it or refuse it
// with a message that says where ("tokenizer.json: ..."). A loaded tokenizer encodes the
// text with and without special tokens, decodes the ids (skipping special tokens and
// not) and streams them back, decodes ids made from the text's bytes (unknown ids
// included) and looks tokens up. Errors are fine if they have a message; a crash, a
// sanitizer report, a leak, a hang (libFuzzer's -timeout), an error without words or
// decoded text that is not UTF-8 is a bug.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cc/text/tokenizer.h"
#include "cc/text/utf8.h"

namespace {

using pteforge::Status;
using pteforge::StatusOr;
using pteforge::Tokenizer;

// Encoded when the input has no text of its own: scripts, combining marks, emoji
// sequences, whitespace runs and the special tokens of the seeds.
constexpr char kDefaultText[] =
    "Hello world, it's 2024! I'M \xC3\xA9\xCC\x81t\xC3\xA9 \xE4\xB8\xAD\xE6\x96\x87 \xD9\x85\xD8\xB1\xD8\xAD\xD8\xA8\xD8\xA7 "
    "\xF0\x9F\x91\xA8\xE2\x80\x8D\xF0\x9F\x91\xA9 \t\r\n   \xE2\x96\x81x <|endoftext|><s></s><mask> 12345678901234";

// A finding: libFuzzer keeps the input that aborts.
void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "tokenizer_fuzzer: %s: %s\n", what, detail.c_str());
  std::abort();
}

void ExpectWords(const Status& status, const char* call) {
  if (status.message().empty()) Finding(call, "an error without a message");
}

void ExpectUtf8(const std::string& text, const char* call) {
  if (pteforge::utf8::FirstInvalidByte(text) != text.size()) Finding(call, "returned text that is not UTF-8");
}

void DecodeEveryWay(const Tokenizer& tokenizer, const std::vector<int64_t>& ids) {
  for (bool skip_special : {true, false}) {
    StatusOr<std::string> text = tokenizer.Decode(ids, skip_special);
    if (text.ok()) {
      ExpectUtf8(*text, "Decode");
    } else {
      ExpectWords(text.status(), "Decode");
    }
    pteforge::StreamDecoder stream(&tokenizer, skip_special);
    for (size_t i = 0; i <= ids.size(); ++i) {
      StatusOr<std::string> piece = i < ids.size() ? stream.Push(ids[i]) : stream.Finish();
      if (!piece.ok()) {
        ExpectWords(piece.status(), "StreamDecoder");
        break;
      }
      ExpectUtf8(*piece, "StreamDecoder");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view json = input.substr(0, nul);
  const std::string_view text = nul == std::string_view::npos ? kDefaultText : input.substr(nul + 1);

  StatusOr<Tokenizer> tokenizer = Tokenizer::FromJson(json);
  if (!tokenizer.ok()) {
    if (tokenizer.status().message().rfind("tokenizer.json", 0) != 0) {
      Finding("FromJson", "an error that does not say where: " + tokenizer.status().message());
    }
    return 0;
  }
  for (bool add_special : {true, false}) {
    StatusOr<std::vector<int64_t>> ids = tokenizer->Encode(text, add_special);
    if (!ids.ok()) {
      ExpectWords(ids.status(), "Encode");
      continue;
    }
    DecodeEveryWay(*tokenizer, *ids);
  }
  // Ids from the text's bytes, two at a time: small ones, most in the vocabulary, and
  // past its end.
  std::vector<int64_t> ids;
  for (size_t i = 0; i + 1 < text.size() && ids.size() < 64; i += 2) {
    ids.push_back(static_cast<int64_t>(static_cast<unsigned char>(text[i]) << 8 | static_cast<unsigned char>(text[i + 1])) -
                  256);
  }
  DecodeEveryWay(*tokenizer, ids);
  for (int64_t id : ids) {
    if (std::optional<std::string> token = tokenizer->IdToToken(id)) {
      if (tokenizer->TokenToId(*token) == std::nullopt) Finding("TokenToId", "the token of id " + std::to_string(id) + " has no id");
    }
  }
  (void)tokenizer->TokenToId(text);
  (void)tokenizer->vocab_size();
  return 0;
}
