// Normalizers of tokenizer.json ("normalizer"): NFC, NFD, Lowercase, Prepend, Replace,
// Strip and Sequence, as Hugging Face tokenizers applies them to each piece of text
// between added tokens. Others (NFKC, NFKD, BertNormalizer, Precompiled, StripAccents)
// are an error naming the type.
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_NORMALIZER_H_
#define PTEFORGE_CC_TEXT_NORMALIZER_H_

#include <memory>
#include <string>

#include "cc/text/json.h"
#include "cc/runtime/status.h"

namespace pteforge {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // Normalizes `text` (valid UTF-8) in place.
  virtual Status Normalize(std::string* text) const = 0;
};

// The normalizer that `config` describes (never null on success).
StatusOr<std::unique_ptr<Normalizer>> MakeNormalizer(const Json& config);

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_NORMALIZER_H_
