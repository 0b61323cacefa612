#include "cc/text/decoder.h"

#include <utility>

#include "cc/text/byte_level.h"
#include "cc/text/pattern.h"
#include "cc/text/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: decoder";

}  // namespace

int ByteFallbackValue(const std::string& token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return -1;
  int value = 0;
  for (int i = 3; i < 5; ++i) {
    const char c = token[i];
    int digit;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    else return -1;
    value = value * 16 + digit;
  }
  return value;
}

namespace {

// The tokens' characters back to bytes (a token with a character outside the byte
// alphabet, such as an added token, keeps its own bytes), then bytes to text.
class ByteLevelDecoder : public Decoder {
 public:
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    std::string bytes;
    for (const std::string& token : *tokens) {
      std::string token_bytes;
      bool all_mapped = true;
      for (char32_t c : utf8::Decode(token)) {
        const int byte = byte_level::ByteOf(c);
        if (byte < 0) {
          all_mapped = false;
          break;
        }
        token_bytes.push_back(static_cast<char>(byte));
      }
      bytes += all_mapped ? token_bytes : token;
    }
    *tokens = {utf8::Lossy(bytes)};
    return Status();
  }
};

// Runs of <0xXX> tokens to the text they encode; a run that is not valid UTF-8 becomes
// one U+FFFD per byte.
class ByteFallbackDecoder : public Decoder {
 public:
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    std::vector<std::string> out;
    std::string run;
    auto flush = [&] {
      if (run.empty()) return;
      if (utf8::FirstInvalidByte(run) == run.size()) {
        out.push_back(run);
      } else {
        for (size_t i = 0; i < run.size(); ++i) out.push_back("\xEF\xBF\xBD");
      }
      run.clear();
    };
    for (std::string& token : *tokens) {
      const int byte = ByteFallbackValue(token);
      if (byte >= 0) {
        run.push_back(static_cast<char>(byte));
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    *tokens = std::move(out);
    return Status();
  }
};

class FuseDecoder : public Decoder {
 public:
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    std::string all;
    for (const std::string& token : *tokens) all += token;
    *tokens = {std::move(all)};
    return Status();
  }
};

// The replacement character to spaces; in the first token it is dropped instead (the
// space the pre-tokenizer prepended), unless prepend_scheme is "never".
class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(char32_t replacement, bool drop_first) : replacement_(replacement), drop_first_(drop_first) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string out;
      for (char32_t c : utf8::Decode((*tokens)[i])) {
        if (c != replacement_) utf8::Append(c, &out);
        else if (!(i == 0 && drop_first_)) out.push_back(' ');
      }
      (*tokens)[i] = std::move(out);
    }
    return Status();
  }

 private:
  char32_t replacement_;
  bool drop_first_;
};

class ReplaceDecoder : public Decoder {
 public:
  explicit ReplaceDecoder(Replacement replacement) : replacement_(std::move(replacement)) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& token : *tokens) PTEFORGE_RETURN_IF_ERROR(replacement_.Apply(&token));
    return Status();
  }

 private:
  Replacement replacement_;
};

// Up to `start` leading and `stop` trailing `content` characters off each token.
class StripDecoder : public Decoder {
 public:
  StripDecoder(char32_t content, size_t start, size_t stop) : content_(content), start_(start), stop_(stop) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (std::string& token : *tokens) {
      const std::u32string chars = utf8::Decode(token);
      size_t begin = 0, end = chars.size();
      while (begin < start_ && begin < chars.size() && chars[begin] == content_) ++begin;
      while (chars.size() - end < stop_ && end > 0 && chars[end - 1] == content_) --end;
      token = begin < end ? utf8::Encode(std::u32string_view(chars).substr(begin, end - begin)) : "";
    }
    return Status();
  }

 private:
  char32_t content_;
  size_t start_, stop_;
};

// end_of_word_suffix to a space (to nothing in the last token).
class BpeSuffixDecoder : public Decoder {
 public:
  explicit BpeSuffixDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (size_t i = 0; i < tokens->size(); ++i) {
      std::string& token = (*tokens)[i];
      const std::string replacement = i + 1 == tokens->size() ? "" : " ";
      for (size_t at = token.find(suffix_); at != std::string::npos; at = token.find(suffix_, at + replacement.size())) {
        token.replace(at, suffix_.size(), replacement);
      }
    }
    return Status();
  }

 private:
  std::string suffix_;
};

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  Status DecodeChain(std::vector<std::string>* tokens) const override {
    for (const auto& step : steps_) PTEFORGE_RETURN_IF_ERROR(step->DecodeChain(tokens));
    return Status();
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

// A member that must be a string of exactly one character.
Status OneCharacter(const Json& config, const char* key, const std::string& where, const char* fallback,
                    char32_t* out) {
  std::string text;
  PTEFORGE_RETURN_IF_ERROR(OptionalString(config, key, where, fallback, &text));
  const std::u32string chars = utf8::Decode(text);
  if (chars.size() != 1) {
    return Failure(Error::InvalidArgument, "%s: '%s' must be one character", where.c_str(), key);
  }
  *out = chars[0];
  return Status();
}

}  // namespace

StatusOr<std::unique_ptr<Decoder>> MakeDecoder(const Json& config) {
  std::string type;
  PTEFORGE_RETURN_IF_ERROR(RequiredString(config, "type", kWhere, &type));
  const std::string where = std::string(kWhere) + " " + type;
  if (type == "ByteLevel") return std::unique_ptr<Decoder>(new ByteLevelDecoder());
  if (type == "ByteFallback") return std::unique_ptr<Decoder>(new ByteFallbackDecoder());
  if (type == "Fuse") return std::unique_ptr<Decoder>(new FuseDecoder());
  if (type == "Metaspace") {
    char32_t replacement;
    PTEFORGE_RETURN_IF_ERROR(OneCharacter(config, "replacement", where, "\xE2\x96\x81", &replacement));
    bool add_prefix_space;
    std::string scheme;
    PTEFORGE_RETURN_IF_ERROR(OptionalBool(config, "add_prefix_space", where, true, &add_prefix_space));
    PTEFORGE_RETURN_IF_ERROR(
        OptionalString(config, "prepend_scheme", where, add_prefix_space ? "always" : "never", &scheme));
    return std::unique_ptr<Decoder>(new MetaspaceDecoder(replacement, scheme != "never"));
  }
  if (type == "Replace") {
    StatusOr<Replacement> replacement = Replacement::FromConfig(config, where);
    if (!replacement.ok()) return replacement.status();
    return std::unique_ptr<Decoder>(new ReplaceDecoder(std::move(replacement).value()));
  }
  if (type == "Strip") {
    char32_t content;
    PTEFORGE_RETURN_IF_ERROR(OneCharacter(config, "content", where, " ", &content));
    int64_t start, stop;
    PTEFORGE_RETURN_IF_ERROR(OptionalInt(config, "start", where, 0, &start));
    PTEFORGE_RETURN_IF_ERROR(OptionalInt(config, "stop", where, 0, &stop));
    if (start < 0 || stop < 0) {
      return Failure(Error::InvalidArgument, "%s: 'start' and 'stop' must not be negative", where.c_str());
    }
    return std::unique_ptr<Decoder>(new StripDecoder(content, static_cast<size_t>(start), static_cast<size_t>(stop)));
  }
  if (type == "BPEDecoder") {
    std::string suffix;
    PTEFORGE_RETURN_IF_ERROR(OptionalString(config, "suffix", where, "</w>", &suffix));
    if (suffix.empty()) return Failure(Error::InvalidArgument, "%s: 'suffix' must not be empty", where.c_str());
    return std::unique_ptr<Decoder>(new BpeSuffixDecoder(std::move(suffix)));
  }
  if (type == "Sequence") {
    auto steps = MakeEach(config, "decoders", where, &MakeDecoder);
    if (!steps.ok()) return steps.status();
    return std::unique_ptr<Decoder>(new SequenceDecoder(std::move(steps).value()));
  }
  return UnsupportedType(kWhere, type, "ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip, BPEDecoder, Sequence");
}

}  // namespace pteforge
