#include "cc/runtime/checks/delegate_check.h"

#include <cstring>

#ifdef PTEFORGE_CHECK_XNNPACK_PAYLOADS
#include "cc/runtime/checks/xnnpack_payload_check.h"
#endif

namespace pteforge {
namespace {

namespace fb = executorch_flatbuffer;

uint64_t ReadLittle(const uint8_t* at, int bytes) {
  uint64_t value = 0;
  for (int b = bytes - 1; b >= 0; --b) value = (value << 8) | at[b];
  return value;
}

// Where segments start: the extended header ("eh00" at byte 8: its length, the
// flatbuffer's size, then the segment base offset, little-endian); 0 when absent.
uint64_t SegmentBase(const uint8_t* data, size_t size) {
  if (size < 32 || std::memcmp(data + 8, "eh00", 4) != 0 || ReadLittle(data + 12, 4) < 24) return 0;
  return ReadLittle(data + 24, 8);
}

// The bytes of segment `index`, or false when it lies outside the file.
bool Segment(const fb::Program& program, const uint8_t* data, size_t size, uint64_t index, const uint8_t** bytes,
             uint64_t* length) {
  const auto* segments = program.segments();
  if (segments == nullptr || index >= segments->size() || segments->Get(static_cast<flatbuffers::uoffset_t>(index)) == nullptr) {
    return false;
  }
  const auto* segment = segments->Get(static_cast<flatbuffers::uoffset_t>(index));
  const uint64_t base = SegmentBase(data, size);
  if (base == 0 || base > size || segment->offset() > size - base || segment->size() > size - base - segment->offset()) {
    return false;
  }
  *bytes = data + base + segment->offset();
  *length = segment->size();
  return true;
}

}  // namespace

Status CheckDelegatePayload(const fb::Program& program, const fb::BackendDelegate& delegate, const uint8_t* data,
                            size_t size, const std::string& where, DelegateShape* shape) {
  shape->arguments = SIZE_MAX;
  const uint8_t* payload = nullptr;
  uint64_t length = 0;
  const auto* processed = delegate.processed();
  if (processed->location() == fb::DataLocation::INLINE) {
    const auto* inline_data = program.backend_delegate_data()->Get(processed->index());
    if (inline_data == nullptr || inline_data->data() == nullptr) {
      return Failure(Error::InvalidProgram, "%s: its data is missing", where.c_str());
    }
    payload = inline_data->data()->data();
    length = inline_data->data()->size();
  } else if (!Segment(program, data, size, processed->index(), &payload, &length)) {
    return Failure(Error::InvalidProgram, "%s: its data lies outside the file", where.c_str());
  }
  if (delegate.id()->str() != "XnnpackBackend") return Status();
#ifndef PTEFORGE_CHECK_XNNPACK_PAYLOADS
  // This runtime has no XNNPACK backend (the runtime from source): loading such a program
  // fails with "backend missing" before anything parses its payload (BUILD.bazel).
  return Status();
#else
  // Newer exports keep XNNPACK's weights in the program's named data, by key.
  NamedDataSize named_data_size = [&](const std::string& key) -> int64_t {
    if (program.named_data() == nullptr) return -1;
    for (const auto* named : *program.named_data()) {
      if (named == nullptr || named->key() == nullptr || named->key()->str() != key) continue;
      const uint8_t* bytes = nullptr;
      uint64_t blob = 0;
      return Segment(program, data, size, named->segment_index(), &bytes, &blob) ? static_cast<int64_t>(blob) : -1;
    }
    return -1;
  };
  size_t externals = 0;
  PTEFORGE_RETURN_IF_ERROR(CheckXnnpackPayload(payload, length, named_data_size, where, &externals));
  shape->arguments = externals;
  return Status();
#endif
}

}  // namespace pteforge
