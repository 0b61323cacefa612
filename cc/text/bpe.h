// The BPE model of tokenizer.json ("model": {"type": "BPE", ...}) as Hugging Face
// tokenizers runs it on one pre-token: the word's characters (with
// continuing_subword_prefix / end_of_word_suffix), unknown characters to their bytes'
// <0xXX> tokens (byte_fallback) or to unk_token (fused if fuse_unk), then merges applied
// lowest rank first, leftmost first among equal ranks. With ignore_merges, a pre-token
// that is itself in the vocabulary is that one token. dropout is not supported (it makes
// encoding random).
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_BPE_H_
#define PTEFORGE_CC_TEXT_BPE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cc/text/json.h"
#include "cc/runtime/status.h"

namespace pteforge {

class BpeModel {
 public:
  static StatusOr<BpeModel> FromJson(const Json& model);

  // Appends the ids of `word` (one pre-token, non-empty) to `ids`.
  void Tokenize(std::string_view word, std::vector<int64_t>* ids) const;

  std::optional<int64_t> TokenToId(std::string_view token) const;
  // The token of `id`, or nullptr if the vocabulary has none.
  const std::string* IdToToken(int64_t id) const;
  size_t vocab_size() const { return vocab_.size(); }

 private:
  struct Merge {
    int32_t rank;
    int32_t new_id;
  };
  static uint64_t PairKey(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  void MergeSymbols(std::vector<int32_t>* symbols) const;

  std::unordered_map<std::string, int32_t> vocab_;
  std::unordered_map<int32_t, std::string> tokens_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::optional<int32_t> unk_id_;
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::string continuing_subword_prefix_;
  std::string end_of_word_suffix_;
  std::array<int32_t, 256> byte_ids_{};  // the <0xXX> tokens, -1 where missing
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_BPE_H_
