// Marian's tokenization, as transformers' MarianTokenizer does it (without sacremoses
// punctuation normalization, which is optional there and not installed here):
//   encode: text -> source SentencePiece pieces -> ids through the shared vocabulary
//           (<unk> for pieces it lacks) -> then </s>;
//   decode: ids -> pieces (dropping </s>, <pad>) -> target SentencePiece detokenization.
// Thread-compatible; built once from the .pte's constants.
#ifndef PTEFORGE_CC_TEXT_MARIAN_TOKENIZER_H_
#define PTEFORGE_CC_TEXT_MARIAN_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cc/runtime/status.h"
#include "cc/text/text_tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace pteforge {

struct SpecialTokens {
  int64_t eos = 0;
  int64_t pad = 0;
  int64_t unk = 1;
};

class MarianTokenizer : public TextTokenizer {
 public:
  // `source_spm`/`target_spm`: serialized SentencePiece models; `vocab`: one piece per
  // line, line i holding the piece of id i (empty for ids without one).
  static StatusOr<std::unique_ptr<MarianTokenizer>> Create(const std::string& source_spm,
                                                           const std::string& target_spm,
                                                           const std::string& vocab, SpecialTokens special);
  ~MarianTokenizer() override;

  // Token ids of `text` followed by </s>. Empty text and invalid UTF-8 are refused.
  StatusOr<std::vector<int64_t>> Encode(const std::string& text) const override;
  // The text of generated ids (special tokens dropped).
  StatusOr<std::string> Decode(const std::vector<int64_t>& ids) const override;
  std::optional<int64_t> TokenToId(const std::string& token) const override;

 private:
  MarianTokenizer();
  std::unique_ptr<sentencepiece::SentencePieceProcessor> source_;
  std::unique_ptr<sentencepiece::SentencePieceProcessor> target_;
  std::unordered_map<std::string, int64_t> piece_to_id_;
  std::vector<std::string> id_to_piece_;
  SpecialTokens special_;
};

// Whether `text` is valid UTF-8; if not, `*offset` is where the first bad byte is.
bool IsValidUtf8(const std::string& text, size_t* offset);

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_MARIAN_TOKENIZER_H_
