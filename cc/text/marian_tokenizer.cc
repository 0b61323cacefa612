#include "cc/text/marian_tokenizer.h"

#include <sstream>

#include "sentencepiece_processor.h"

namespace pteforge {

bool IsValidUtf8(const std::string& text, size_t* offset) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = bytes[i];
    size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (length == 0 || i + length > n) break;
    uint32_t code = length == 1 ? c : c & (0x7f >> length);
    bool ok = true;
    for (size_t k = 1; k < length; ++k) {
      ok = ok && (bytes[i + k] & 0xc0) == 0x80;
      code = (code << 6) | (bytes[i + k] & 0x3f);
    }
    // No overlong forms, surrogates or code points beyond U+10FFFF.
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (!ok || code < kMin[length] || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff) break;
    i += length;
  }
  *offset = i;
  return i == n;
}

MarianTokenizer::MarianTokenizer() = default;
MarianTokenizer::~MarianTokenizer() = default;

StatusOr<std::unique_ptr<MarianTokenizer>> MarianTokenizer::Create(const std::string& source_spm,
                                                                   const std::string& target_spm,
                                                                   const std::string& vocab, SpecialTokens special) {
  std::unique_ptr<MarianTokenizer> tokenizer(new MarianTokenizer());
  tokenizer->special_ = special;
  tokenizer->source_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  tokenizer->target_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  auto loaded = tokenizer->source_->LoadFromSerializedProto(source_spm);
  if (!loaded.ok()) return Failure(Error::InvalidProgram, "bad source SentencePiece model: %s", loaded.ToString().c_str());
  loaded = tokenizer->target_->LoadFromSerializedProto(target_spm);
  if (!loaded.ok()) return Failure(Error::InvalidProgram, "bad target SentencePiece model: %s", loaded.ToString().c_str());
  std::istringstream lines(vocab);
  std::string piece;
  while (std::getline(lines, piece)) {
    int64_t id = static_cast<int64_t>(tokenizer->id_to_piece_.size());
    if (!piece.empty()) tokenizer->piece_to_id_.emplace(piece, id);
    tokenizer->id_to_piece_.push_back(piece);
  }
  if (tokenizer->piece_to_id_.empty()) return Failure(Error::InvalidProgram, "the model's vocabulary is empty");
  return tokenizer;
}

StatusOr<std::vector<int64_t>> MarianTokenizer::Encode(const std::string& text) const {
  size_t bad = 0;
  if (!IsValidUtf8(text, &bad)) {
    return Failure(Error::InvalidArgument, "the text is not valid UTF-8 (bad byte 0x%02x at offset %zu)",
                   static_cast<unsigned>(static_cast<unsigned char>(text[bad])), bad);
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Failure(Error::InvalidArgument, "the text is empty");
  }
  std::vector<std::string> pieces;
  auto encoded = source_->Encode(text, &pieces);
  if (!encoded.ok()) return Failure(Error::Internal, "SentencePiece failed: %s", encoded.ToString().c_str());
  std::vector<int64_t> ids;
  ids.reserve(pieces.size() + 1);
  for (const auto& p : pieces) {
    auto it = piece_to_id_.find(p);
    ids.push_back(it == piece_to_id_.end() ? special_.unk : it->second);
  }
  ids.push_back(special_.eos);
  return ids;
}

StatusOr<std::string> MarianTokenizer::Decode(const std::vector<int64_t>& ids) const {
  std::vector<std::string> pieces;
  for (int64_t id : ids) {
    if (id == special_.eos || id == special_.pad) continue;
    bool known = id >= 0 && static_cast<size_t>(id) < id_to_piece_.size() && !id_to_piece_[id].empty();
    pieces.push_back(known ? id_to_piece_[id] : "<unk>");
  }
  std::string text;
  auto decoded = target_->Decode(pieces, &text);
  if (!decoded.ok()) return Failure(Error::Internal, "SentencePiece failed: %s", decoded.ToString().c_str());
  return text;
}

std::optional<int64_t> MarianTokenizer::TokenToId(const std::string& token) const {
  auto it = piece_to_id_.find(token);
  if (it == piece_to_id_.end()) return std::nullopt;
  return it->second;
}

}  // namespace pteforge
