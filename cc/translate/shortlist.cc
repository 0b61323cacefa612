#include "cc/translate/shortlist.h"

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
                     shortlist.ids_[i], static_cast<long long>(target_vocab_size));
    }
  }
  return shortlist;
}

StatusOr<std::vector<int64_t>> Shortlist::Candidates(const std::vector<std::vector<int64_t>>& sources,
                                                     int64_t multiple) const {
  std::vector<bool> chosen(target_vocab_size_, false);
  std::vector<bool> seen(offsets_.size() - 1, false);
  std::fill(chosen.begin(), chosen.begin() + first_, true);
  for (const auto& source : sources) {
    for (int64_t id : source) {
      if (id < 0 || id >= source_vocab_size()) {
        return Failure(Error::InvalidArgument, "source id %lld is outside the shortlist's vocabulary (0..%lld)",
                       static_cast<long long>(id), static_cast<long long>(source_vocab_size() - 1));
      }
      if (seen[id]) continue;
      seen[id] = true;
      for (uint64_t i = offsets_[id]; i < offsets_[id + 1]; ++i) chosen[ids_[i]] = true;
    }
  }
  std::vector<int64_t> candidates;
  for (int64_t id = 0; id < target_vocab_size_; ++id) {
    if (chosen[id]) candidates.push_back(id);
  }
  // Padding with the smallest unused ids >= first; the vocabulary's end stops it.
  for (int64_t id = first_; multiple > 0 && candidates.size() % multiple != 0 && id < target_vocab_size_; ++id) {
    if (!chosen[id]) {
      chosen[id] = true;
      candidates.push_back(id);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

}  // namespace pteforge
