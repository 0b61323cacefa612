#include "cc/seq2seq/shortlist.h"

#include <algorithm>

namespace pteforge {
namespace {

template <typename T>
T Little(const std::string& bytes, size_t offset) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    value |= static_cast<T>(static_cast<unsigned char>(bytes[offset + i])) << (8 * i);
  }
  return value;
}

constexpr size_t kHeader = 6 * sizeof(uint64_t);

}  // namespace

StatusOr<Shortlist> Shortlist::Parse(const std::string& bytes, int64_t target_vocab_size) {
  if (bytes.size() < kHeader) {
    return Failure(Error::InvalidProgram, "the shortlist has %zu bytes, less than its 48-byte header", bytes.size());
  }
  const uint64_t first = Little<uint64_t>(bytes, 16), offsets = Little<uint64_t>(bytes, 32),
                 ids = Little<uint64_t>(bytes, 40);
  // Sizes checked before they are multiplied, so that a corrupt header cannot overflow.
  if (offsets < 2 || offsets > bytes.size() || ids > bytes.size() ||
      bytes.size() != kHeader + 8 * offsets + 4 * ids) {
    return Failure(Error::InvalidProgram, "the shortlist's header (%llu offsets, %llu ids) does not fit its %zu bytes",
                   static_cast<unsigned long long>(offsets), static_cast<unsigned long long>(ids), bytes.size());
  }
  if (first > static_cast<uint64_t>(target_vocab_size)) {
    return Failure(Error::InvalidProgram, "the shortlist's first %llu ids exceed the vocabulary of %lld",
                   static_cast<unsigned long long>(first), static_cast<long long>(target_vocab_size));
  }
  Shortlist shortlist;
  shortlist.first_ = static_cast<int64_t>(first);
  shortlist.target_vocab_size_ = target_vocab_size;
  shortlist.offsets_.resize(offsets);
  for (size_t i = 0; i < offsets; ++i) {
    shortlist.offsets_[i] = Little<uint64_t>(bytes, kHeader + 8 * i);
    if ((i == 0 && shortlist.offsets_[0] != 0) || (i > 0 && shortlist.offsets_[i] < shortlist.offsets_[i - 1])) {
      return Failure(Error::InvalidProgram, "the shortlist's offsets are not increasing from 0 (at %zu)", i);
    }
  }
  if (shortlist.offsets_.back() != ids) {
    return Failure(Error::InvalidProgram, "the shortlist's offsets end at %llu, not at its %llu ids",
                   static_cast<unsigned long long>(shortlist.offsets_.back()), static_cast<unsigned long long>(ids));
  }
  shortlist.ids_.resize(ids);
  const size_t base = kHeader + 8 * offsets;
  for (size_t i = 0; i < ids; ++i) {
    shortlist.ids_[i] = Little<uint32_t>(bytes, base + 4 * i);
    if (shortlist.ids_[i] >= target_vocab_size) {
      return Failure(Error::InvalidProgram, "the shortlist's target id %u is outside the vocabulary of %lld",
                     static_cast<unsigned>(shortlist.ids_[i]), static_cast<long long>(target_vocab_size));
    }
  }
  return shortlist;
}

StatusOr<std::vector<int64_t>> Shortlist::Candidates(const std::vector<std::vector<int64_t>>& sources,
                                                     int64_t multiple) const {
  // Collected and sorted rather than marked in vocabulary-wide tables: called for every
  // batch and sentence, where a few hundred ids of 32000 are chosen.
  std::vector<int64_t> distinct;
  for (const auto& source : sources) {
    for (int64_t id : source) {
      if (id < 0 || id >= source_vocab_size()) {
        return Failure(Error::InvalidArgument, "source id %lld is outside the shortlist's vocabulary (0..%lld)",
                       static_cast<long long>(id), static_cast<long long>(source_vocab_size() - 1));
      }
      distinct.push_back(id);
    }
  }
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<int64_t> candidates(first_);
  for (int64_t id = 0; id < first_; ++id) candidates[id] = id;
  for (int64_t id : distinct) candidates.insert(candidates.end(), ids_.begin() + offsets_[id], ids_.begin() + offsets_[id + 1]);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  // Padding with the smallest unused ids >= first; the vocabulary's end stops it.
  if (multiple > 0 && candidates.size() % multiple != 0) {
    std::vector<int64_t> padding;
    size_t missing = multiple - candidates.size() % multiple;
    auto used = std::lower_bound(candidates.begin(), candidates.end(), first_);
    for (int64_t id = first_; padding.size() < missing && id < target_vocab_size_; ++id) {
      while (used != candidates.end() && *used < id) ++used;
      if (used == candidates.end() || *used != id) padding.push_back(id);
    }
    const size_t middle = candidates.size();
    candidates.insert(candidates.end(), padding.begin(), padding.end());
    std::inplace_merge(candidates.begin(), candidates.begin() + middle, candidates.end());
  }
  return candidates;
}

}  // namespace pteforge
