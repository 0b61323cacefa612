// Decoders of tokenizer.json ("decoder"): ByteLevel, Metaspace, Replace, ByteFallback,
// Fuse, Strip, BPEDecoder and Sequence, each turning the list of token strings into
// another as Hugging Face tokenizers' decode_chain does; the result is their
// concatenation. Others (WordPiece, CTC) are an error naming the type.
//
// Immutable after construction; thread-safe.
#ifndef PTEFORGE_CC_TEXT_DECODER_H_
#define PTEFORGE_CC_TEXT_DECODER_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/text/json.h"
#include "cc/runtime/status.h"

namespace pteforge {

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual Status DecodeChain(std::vector<std::string>* tokens) const = 0;
};

StatusOr<std::unique_ptr<Decoder>> MakeDecoder(const Json& config);

// The byte a byte-fallback token ("<0x41>") stands for, or -1 for any other token.
int ByteFallbackValue(const std::string& token);

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_DECODER_H_
