// Marian's binary lexical shortlist (lex.*.s2t.bin, as the Bergamot .pte carries it) and
// the engine's candidate rule: the target ids a sentence's output may take are ids
// 0..first-1, plus the list of every distinct source id, padded to a multiple of
// `multiple` with the smallest unused ids >= first; ascending
// (models/bergamot/shortlist.py is the Python twin, FINDINGS_MARIAN.md the source).
#ifndef PTEFORGE_CC_SEQ2SEQ_SHORTLIST_H_
#define PTEFORGE_CC_SEQ2SEQ_SHORTLIST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

class Shortlist {
 public:
  // Validates and copies the file's tables: six uint64 (magic, checksum, first, best,
  // offset count, id count), uint64 offsets, uint32 ids, little-endian.
  static StatusOr<Shortlist> Parse(const std::string& bytes, int64_t target_vocab_size);

  // Candidates for `sources` (one candidate set for all of them), ascending.
  StatusOr<std::vector<int64_t>> Candidates(const std::vector<std::vector<int64_t>>& sources, int64_t multiple) const;

  int64_t source_vocab_size() const { return static_cast<int64_t>(offsets_.size()) - 1; }

 private:
  int64_t first_ = 0;
  int64_t target_vocab_size_ = 0;
  std::vector<uint64_t> offsets_;
  std::vector<uint32_t> ids_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_SHORTLIST_H_
