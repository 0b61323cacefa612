// A Hugging Face tokenizer.json tokenizer in plain C++17: the same ids as the Python
// `tokenizers` package (0.23.3) for the BPE tokenizers of GPT-2, Llama-3, Qwen2 and
// Llama-2/SentencePiece style models, checked by //cc/text:tokenizer_golden_test.
// docs/tokenizer.md lists what is supported; anything else in a tokenizer.json is a
// Status naming it, at FromJson.
//
// A Tokenizer is immutable after FromJson: Encode, Decode and the lookups may run on
// several threads at once. Copies share the loaded data (cheap). No exceptions.
#ifndef PTEFORGE_CC_TEXT_TOKENIZER_H_
#define PTEFORGE_CC_TEXT_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

class Tokenizer {
 public:
  // Parses the contents of a tokenizer.json (from a file or from bytes stored in a .pte).
  static StatusOr<Tokenizer> FromJson(std::string_view json);

  // As Python tokenizers' `Tokenizer.encode(text, add_special_tokens=...).ids`. Text that
  // is not valid UTF-8 is an error naming the byte offset.
  StatusOr<std::vector<int64_t>> Encode(std::string_view utf8_text, bool add_special_tokens = true) const;

  // As `Tokenizer.decode(ids, skip_special_tokens=...)`, except that an id with no token
  // is an error (Python drops it silently). Always valid UTF-8 (broken byte sequences
  // become U+FFFD, as in Python).
  StatusOr<std::string> Decode(const std::vector<int64_t>& ids, bool skip_special_tokens = true) const;

  // Added tokens first, then the model's vocabulary (as `token_to_id`).
  std::optional<int64_t> TokenToId(std::string_view token) const;
  // The token of `id` (as `id_to_token`), or nullopt.
  std::optional<std::string> IdToToken(int64_t id) const;
  // The number of distinct tokens, added tokens included (`get_vocab_size()`).
  size_t vocab_size() const;

 private:
  struct Impl;  // the pipeline's parts (tokenizer.cc)
  explicit Tokenizer(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// Streaming decode, for printing generated text token by token: Push(id) returns the
// text that became final with that token (often "", e.g. in the middle of a multi-byte
// character or a byte-fallback run); Finish() returns the rest. The concatenation of
// everything returned equals tokenizer.Decode(all ids, skip_special_tokens), and no
// piece ends inside a UTF-8 character.
//
// It decodes a window of the last tokens each time (as tokenizers' DecodeStream), so a
// Push costs a few tokens' decoding, not the whole text's. Holds a pointer to the
// tokenizer, which must outlive it. Not thread-safe (one stream, one thread).
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer* tokenizer, bool skip_special_tokens = true)
      : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens) {}

  StatusOr<std::string> Push(int64_t id);
  StatusOr<std::string> Finish();

 private:
  const Tokenizer* tokenizer_;
  bool skip_special_tokens_;
  std::vector<int64_t> all_ids_;  // for Finish's check against the whole decode
  std::string emitted_;           // everything returned so far
  // The window: tokens already returned that give the context (prefix_length_ of them),
  // then the tokens not yet returned; prefix_text_ is the window's prefix decoded alone.
  std::vector<int64_t> window_;
  size_t prefix_length_ = 0;
  std::string prefix_text_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_TOKENIZER_H_
