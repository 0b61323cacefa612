#include "cc/runtime/checks/xnnpack_payload_check.h"

#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "runtime_schema_generated.h"

namespace pteforge {
namespace {

namespace fb = fb_xnnpack;

constexpr uint32_t kInvalidValueId = ~uint32_t{0};  // XNN_INVALID_VALUE_ID: "no value"
constexpr uint32_t kExternalInput = 1, kExternalOutput = 2;  // XNN_VALUE_FLAG_EXTERNAL_*
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;

uint64_t ReadLittle(const uint8_t* at, int bytes) {
  uint64_t value = 0;
  for (int b = bytes - 1; b >= 0; --b) value = (value << 8) | at[b];
  return value;
}

// Bits per element as XNNPACK stores a constant of this type (0: not a data type).
int BitsOf(fb::XNNDatatype type) {
  switch (type) {
    case fb::XNNDatatype::xnn_datatype_fp32:
    case fb::XNNDatatype::xnn_datatype_qint32:
    case fb::XNNDatatype::xnn_datatype_qcint32:
    case fb::XNNDatatype::xnn_datatype_int32:
    case fb::XNNDatatype::xnn_datatype_pfp32: return 32;
    case fb::XNNDatatype::xnn_datatype_fp16:
    case fb::XNNDatatype::xnn_datatype_bf16: return 16;
    case fb::XNNDatatype::xnn_datatype_qint8:
    case fb::XNNDatatype::xnn_datatype_quint8:
    case fb::XNNDatatype::xnn_datatype_qcint8:
    case fb::XNNDatatype::xnn_datatype_qdint8:
    case fb::XNNDatatype::xnn_datatype_qpint8: return 8;
    case fb::XNNDatatype::xnn_datatype_qcint4:
    case fb::XNNDatatype::xnn_datatype_qbint4: return 4;
    default: return 0;
  }
}

class GraphChecker {
 public:
  GraphChecker(const fb::XNNGraph& graph, const uint8_t* constants, uint64_t constants_size,
               const NamedDataSize& named_data_size, const std::string& where)
      : graph_(graph), constants_(constants), constants_size_(constants_size),
        named_data_size_(named_data_size), where_(where) {}

  Status Check(size_t* externals) {
    if (graph_.xvalues() == nullptr || graph_.xnodes() == nullptr) return Bad("has no values or no nodes");
    *externals = 0;
    for (size_t v = 0; v < graph_.xvalues()->size(); ++v) {
      const fb::XNNTensorValue* tensor = nullptr;
      PTEFORGE_RETURN_IF_ERROR(CheckValue(v, &tensor));
      ranks_[tensor->id_out()] = tensor->num_dims();
      if (tensor->flags() & kExternalInput) sources_.insert(tensor->id_out());
      if (tensor->flags() & kExternalOutput) outputs_.insert(tensor->id_out());
      if (tensor->constant_buffer_idx() != 0) sources_.insert(tensor->id_out());
      if (tensor->flags() & (kExternalInput | kExternalOutput)) ++*externals;
    }
    for (size_t n = 0; n < graph_.xnodes()->size(); ++n) {
      const fb::XNode* node = graph_.xnodes()->Get(static_cast<flatbuffers::uoffset_t>(n));
      if (node == nullptr) return Bad("node " + std::to_string(n) + " is missing");
      PTEFORGE_RETURN_IF_ERROR(CheckNode(*node, where_ + ", XNNPACK node " + std::to_string(n)));
    }
    return CheckDataflow();
  }

 private:
  Status Bad(const std::string& what) const {
    return Failure(Error::InvalidProgram, "%s: the XNNPACK payload %s", where_.c_str(), what.c_str());
  }
  static Status Bad(const std::string& where, const std::string& what) {
    return Failure(Error::InvalidProgram, "%s: %s", where.c_str(), what.c_str());
  }

  Status CheckValue(size_t v, const fb::XNNTensorValue** tensor_out) {
    const std::string value = "value " + std::to_string(v);
    const fb::XValue* item = graph_.xvalues()->Get(static_cast<flatbuffers::uoffset_t>(v));
    const fb::XNNQuantizedTensorValue* quantized = nullptr;
    const fb::XNNTensorValue* tensor = nullptr;
    if (item != nullptr && item->xvalue_union_type() == fb::XValueUnion::XNNTensorValue) {
      tensor = item->xvalue_union_as_XNNTensorValue();
    } else if (item != nullptr && item->xvalue_union_type() == fb::XValueUnion::XNNQuantizedTensorValue) {
      quantized = item->xvalue_union_as_XNNQuantizedTensorValue();
      if (quantized != nullptr) tensor = quantized->tensor_value();
    }
    if (tensor == nullptr) return Bad(value + " is not a tensor");
    if (tensor->dims() == nullptr || tensor->dims()->size() != tensor->num_dims()) {
      return Bad(value + " states " + std::to_string(tensor->num_dims()) + " dimensions but lists " +
                 std::to_string(tensor->dims() ? tensor->dims()->size() : 0));
    }
    uint64_t elements = 1;
    for (uint32_t d : *tensor->dims()) {
      if (d != 0 && elements > kMaxTensorBytes / d) return Bad(value + " is impossibly large");
      elements *= d;
    }
    const uint64_t bytes = (elements * BitsOf(tensor->datatype()) + 7) / 8;
    if (tensor->constant_buffer_idx() != 0) {
      PTEFORGE_RETURN_IF_ERROR(CheckConstant(tensor->constant_buffer_idx(), bytes, value + "'s data"));
    }
    if (quantized != nullptr) PTEFORGE_RETURN_IF_ERROR(CheckQuantization(*quantized, *tensor, value));
    PTEFORGE_RETURN_IF_ERROR(CheckExternal(*tensor, value));
    *tensor_out = tensor;
    return Status();
  }

  // The backend gives XNNPACK the data of the values flagged as inputs and outputs, by
  // external id: an external value without a flag, or two sharing an id, would run
  // with no data (a null read inside XNNPACK: found by the Session fuzzer).
  Status CheckExternal(const fb::XNNTensorValue& tensor, const std::string& value) {
    const uint32_t id = tensor.external_id(), flags = tensor.flags() & (kExternalInput | kExternalOutput);
    if (id == kInvalidValueId) {
      return flags == 0 ? Status() : Bad(value + " is an input or output without an external id");
    }
    if (flags == 0 || flags == (kExternalInput | kExternalOutput)) {
      return Bad(value + " has external id " + std::to_string(id) + " but is not exactly one of an input and an output");
    }
    if (id >= graph_.num_externs() || !external_ids_.insert(id).second) {
      return Bad(value + "'s external id " + std::to_string(id) + " is out of range or taken");
    }
    return Status();
  }

  Status CheckQuantization(const fb::XNNQuantizedTensorValue& quantized, const fb::XNNTensorValue& tensor,
                           const std::string& value) {
    switch (quantized.quant_params_type()) {
      case fb::XNNQuantParams::PerTensorQuant:
        if (quantized.quant_params_as_PerTensorQuant() == nullptr) break;
        return Status();
      case fb::XNNQuantParams::PerTokenDynamicQuant:
        if (quantized.quant_params_as_PerTokenDynamicQuant() == nullptr) break;
        return Status();
      case fb::XNNQuantParams::PerChannelQuant: {
        const auto* params = quantized.quant_params_as_PerChannelQuant();
        if (params == nullptr) break;
        if (params->channel_dim() < 0 || static_cast<uint32_t>(params->channel_dim()) >= tensor.num_dims()) {
          return Bad(value + "'s channel dimension " + std::to_string(params->channel_dim()) + " is not one of its " +
                     std::to_string(tensor.num_dims()));
        }
        const uint64_t channels = tensor.dims()->Get(static_cast<flatbuffers::uoffset_t>(params->channel_dim()));
        if (params->scale_buffer_idx() != 0) {
          return CheckConstant(params->scale_buffer_idx(), channels * sizeof(float), value + "'s scales");
        }
        if (params->scale() == nullptr || params->scale()->size() < channels) {
          return Bad(value + " has fewer scales than its " + std::to_string(channels) + " channels");
        }
        return Status();
      }
      case fb::XNNQuantParams::PerChannelGroupQuant: {
        const auto* params = quantized.quant_params_as_PerChannelGroupQuant();
        if (params == nullptr) break;
        if (tensor.num_dims() < 2 || params->group_size() == 0) {
          return Bad(value + " is grouped (" + std::to_string(params->group_size()) + " per group) but is not a matrix");
        }
        if (params->scale_buffer_idx() != 0) {
          return CheckConstant(params->scale_buffer_idx(), uint64_t{params->num_scales()} * 2, value + "'s scales");
        }
        if (params->scale() == nullptr) return Bad(value + " has no scales");
        return Status();
      }
      default: break;
    }
    return Bad(value + " has missing or unknown quantization parameters");
  }

  // Constant `index` must hold at least `bytes` bytes, inside the payload or the
  // program's named data.
  Status CheckConstant(uint32_t index, uint64_t bytes, const std::string& what) const {
    const std::string constant = what + " (constant " + std::to_string(index) + ")";
    if (constants_ == nullptr) {  // the older layout: constants inside the flatbuffer
      const auto* buffers = graph_.constant_buffer();
      if (buffers == nullptr || index >= buffers->size()) return Bad(constant + " does not exist");
      const fb::Buffer* buffer = buffers->Get(index);
      if (buffer == nullptr || buffer->storage() == nullptr || buffer->storage()->size() < bytes) {
        return Bad(constant + " is shorter than its " + std::to_string(bytes) + " bytes");
      }
      return Status();
    }
    const auto* offsets = graph_.constant_data();
    if (offsets == nullptr || index >= offsets->size() || offsets->Get(index) == nullptr) {
      return Bad(constant + " does not exist");
    }
    const fb::ConstantDataOffset* entry = offsets->Get(index);
    if (flatbuffers::IsFieldPresent(entry, fb::ConstantDataOffset::VT_NAMED_KEY)) {
      const std::string key = entry->named_key() ? entry->named_key()->str() : "";
      const int64_t size = named_data_size_(key);
      if (size < 0) return Bad(constant + " names data '" + key + "' the program does not have");
      if (static_cast<uint64_t>(size) < bytes) {
        return Bad(constant + ": data '" + key + "' has " + std::to_string(size) + " of its " + std::to_string(bytes) +
                   " bytes");
      }
      return Status();
    }
    if (entry->size() < bytes || entry->offset() > constants_size_ || entry->size() > constants_size_ - entry->offset()) {
      return Bad(constant + " lies outside the payload's constant data (offset " + std::to_string(entry->offset()) +
                 ", " + std::to_string(entry->size()) + " bytes for " + std::to_string(bytes) + ", " +
                 std::to_string(constants_size_) + " bytes there)");
    }
    return Status();
  }

  Status CheckId(const std::string& where, const char* type, const char* field, uint32_t id) const {
    if (id == kInvalidValueId || ranks_.count(id) != 0) return Status();
    return Bad(where, std::string(type) + "'s " + field + " " + std::to_string(id) + " is no value of the graph");
  }

  // A node reads `id`: it must be an input, a constant, or some node's result.
  Status Input(const std::string& where, const char* type, const char* field, uint32_t id) {
    PTEFORGE_RETURN_IF_ERROR(CheckId(where, type, field, id));
    if (id != kInvalidValueId) reads_.push_back({where + " (" + type + ")'s " + field, id});
    return Status();
  }

  // A node writes `id`: not an input or a constant, and no other node's result.
  Status Output(const std::string& where, const char* type, const char* field, uint32_t id) {
    PTEFORGE_RETURN_IF_ERROR(CheckId(where, type, field, id));
    if (id == kInvalidValueId) return Status();
    if (sources_.count(id) != 0 || !produced_.insert(id).second) {
      return Bad(where, std::string(type) + " writes value " + std::to_string(id) +
                            ", an input, a constant or another node's result");
    }
    return Status();
  }

  // Every value read has a source and every graph output is written: otherwise
  // XNNPACK runs with a value that has no data (a null read inside XNNPACK: found by
  // the Session fuzzer, a node whose ids were lost).
  Status CheckDataflow() const {
    for (const auto& [what, id] : reads_) {
      if (sources_.count(id) == 0 && produced_.count(id) == 0) {
        return Bad(what + " reads value " + std::to_string(id) + ", which nothing writes");
      }
    }
    for (uint32_t id : outputs_) {
      if (produced_.count(id) == 0) return Bad("output value " + std::to_string(id) + " is written by no node");
    }
    return Status();
  }

  uint32_t RankOf(uint32_t id) const {
    auto it = ranks_.find(id);
    return it == ranks_.end() ? 0 : it->second;
  }

  Status CheckLength(const std::string& where, const char* type, const char* field,
                     const flatbuffers::Vector<uint32_t>* items, uint32_t length) const {
    if (items != nullptr && items->size() == length) return Status();
    return Bad(where, std::string(type) + "'s " + field + " has " + std::to_string(items ? items->size() : 0) +
                          " entries for " + std::to_string(length) + " dimensions");
  }

  Status CheckNode(const fb::XNode& node, const std::string& where) {
    switch (node.xnode_union_type()) {
#include "cc/runtime/checks/xnnpack_node_checks.inc"
      default:
        return Bad(where, "has an unknown type (" + std::to_string(static_cast<int>(node.xnode_union_type())) + ")");
    }
  }

  const fb::XNNGraph& graph_;
  const uint8_t* constants_;
  uint64_t constants_size_;
  const NamedDataSize& named_data_size_;
  std::string where_;
  std::unordered_map<uint32_t, uint32_t> ranks_;  // value id -> its number of dimensions
  std::unordered_set<uint32_t> external_ids_;
  std::unordered_set<uint32_t> sources_;   // inputs and constants
  std::unordered_set<uint32_t> outputs_;   // the graph's outputs
  std::unordered_set<uint32_t> produced_;  // node results
  std::vector<std::pair<std::string, uint32_t>> reads_;
};

}  // namespace

Status CheckXnnpackPayload(const uint8_t* payload, size_t size, const NamedDataSize& named_data_size,
                           const std::string& where, size_t* externals) {
  auto bad = [&](const std::string& what) {
    return Failure(Error::InvalidProgram, "%s: the XNNPACK payload %s", where.c_str(), what.c_str());
  };
  // XNNHeader (backends/xnnpack/runtime/XNNHeader.h): 4 bytes, "XH00", its length
  // (uint16), the flatbuffer's offset and size (uint32), the constants' offset
  // (uint32) and size (uint64), little-endian. Without it the payload is the flatbuffer.
  constexpr size_t kHeaderBytes = 30;
  const uint8_t* flatbuffer = payload;
  uint64_t flatbuffer_size = size;
  const uint8_t* constants = nullptr;
  uint64_t constants_size = 0;
  if (size >= 8 && std::memcmp(payload + 4, "XH00", 4) == 0) {
    if (size < kHeaderBytes || ReadLittle(payload + 8, 2) < kHeaderBytes) return bad("has a truncated header");
    const uint64_t offset = ReadLittle(payload + 10, 4), constants_offset = ReadLittle(payload + 18, 4);
    flatbuffer_size = ReadLittle(payload + 14, 4);
    constants_size = ReadLittle(payload + 22, 8);
    if (offset > size || flatbuffer_size > size - offset || constants_offset > size ||
        constants_size > size - constants_offset) {
      return bad("header places its parts outside its " + std::to_string(size) + " bytes");
    }
    flatbuffer = payload + offset;
    constants = payload + constants_offset;
  }
  if (flatbuffer_size < 8 || (std::memcmp(flatbuffer + 4, "XN00", 4) != 0 && std::memcmp(flatbuffer + 4, "XN01", 4) != 0)) {
    return bad("is not an XNNPACK graph (no XN00/XN01 identifier)");
  }
  flatbuffers::Verifier verifier(flatbuffer, flatbuffer_size);
  if (!verifier.VerifyBuffer<fb::XNNGraph>(nullptr)) return bad("graph's structure is invalid (flatbuffer verification failed)");
  return GraphChecker(*fb::GetXNNGraph(flatbuffer), constants, constants_size, named_data_size, where).Check(externals);
}

}  // namespace pteforge
