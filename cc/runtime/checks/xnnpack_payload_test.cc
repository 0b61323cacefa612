// XNNPACK delegate payloads checked before the backend parses them: real XNNPACK
// programs pass; a payload damaged in one place is refused with what is wrong; and
// random damage to the back half of a program (where the payloads lie) never crashes
// a Session opening it (the test process is the witness: a crash fails it).
//
// Usage: xnnpack_payload_test <xnnpack.pte>...

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "cc/runtime/checks/program_check.h"
#include "cc/runtime/session.h"
#include "program_generated.h"
#include "runtime_schema_generated.h"

namespace pteforge {
namespace {

namespace fb = executorch_flatbuffer;

std::vector<std::string> g_models;

struct Bytes {
  std::vector<uint64_t> words;  // 8-byte aligned, as a Session's buffer
  size_t size = 0;
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words.data()); }
};

Bytes Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Bytes out;
  out.words.resize((bytes.size() + 7) / 8);
  std::memcpy(out.words.data(), bytes.data(), bytes.size());
  out.size = bytes.size();
  return out;
}

uint64_t ReadLittle(const uint8_t* at, int bytes) {
  uint64_t value = 0;
  for (int b = bytes - 1; b >= 0; --b) value = (value << 8) | at[b];
  return value;
}

// The first XNNPACK payload of the program (a segment after the extended header).
uint8_t* FirstPayload(Bytes& program, uint64_t* size) {
  const fb::Program* root = fb::GetProgram(program.data());
  const uint64_t base = ReadLittle(program.data() + 24, 8);
  for (const auto* plan : *root->execution_plan()) {
    if (plan->delegates() == nullptr) continue;
    for (const auto* delegate : *plan->delegates()) {
      if (delegate->id()->str() != "XnnpackBackend") continue;
      const auto* segment = root->segments()->Get(delegate->processed()->index());
      *size = segment->size();
      return program.data() + base + segment->offset();
    }
  }
  return nullptr;
}

fb_xnnpack::XNNGraph* GraphOf(uint8_t* payload) {
  return fb_xnnpack::GetMutableXNNGraph(payload + ReadLittle(payload + 10, 4));
}

// Damages the first payload of the first model and returns CheckProgram's message.
std::string CheckDamaged(const std::function<void(uint8_t* payload, uint64_t size)>& damage) {
  Bytes program = Load(g_models.at(0));
  uint64_t size = 0;
  uint8_t* payload = FirstPayload(program, &size);
  if (payload == nullptr) return "no XNNPACK payload";
  damage(payload, size);
  Status status = CheckProgram(program.data(), program.size);
  return status.ok() ? "ok" : status.message();
}

TEST(XnnpackPayloadTest, ExportedProgramsPassAndLoad) {
  for (const std::string& model : g_models) {
    Bytes program = Load(model);
    uint64_t size = 0;
    ASSERT_NE(FirstPayload(program, &size), nullptr) << model << " has no XNNPACK payload";
    EXPECT_TRUE(CheckProgram(program.data(), program.size).ok()) << model;
    auto session = Session::OpenBuffer(program.data(), program.size);
    EXPECT_TRUE(session.ok()) << model << ": " << session.status().message();
  }
}

TEST(XnnpackPayloadTest, HeaderPointingOutside) {
  std::string message = CheckDamaged([](uint8_t* payload, uint64_t size) {
    const uint32_t huge = static_cast<uint32_t>(size) * 2;
    std::memcpy(payload + 14, &huge, 4);  // the flatbuffer's size
  });
  EXPECT_NE(message.find("delegate 0 (XnnpackBackend): the XNNPACK payload header places its parts outside"),
            std::string::npos)
      << message;
}

TEST(XnnpackPayloadTest, NotAGraph) {
  std::string message = CheckDamaged([](uint8_t* payload, uint64_t) {
    std::memcpy(payload + ReadLittle(payload + 10, 4) + 4, "ZZ00", 4);
  });
  EXPECT_NE(message.find("is not an XNNPACK graph"), std::string::npos) << message;
}

TEST(XnnpackPayloadTest, NodeNamingNoValue) {
  std::string message = CheckDamaged([](uint8_t* payload, uint64_t) {
    auto* graph = GraphOf(payload);
    for (size_t n = 0; n < graph->xnodes()->size(); ++n) {
      auto* node = graph->mutable_xnodes()->GetMutableObject(static_cast<flatbuffers::uoffset_t>(n));
      // mutate_* is false when the id is 0, the default (not stored).
      void* fields = const_cast<void*>(node->xnode_union());
      switch (node->xnode_union_type()) {
        case fb_xnnpack::XNodeUnion::XNNFullyConnected:
          if (static_cast<fb_xnnpack::XNNFullyConnected*>(fields)->mutate_output_id(987654)) return;
          break;
        case fb_xnnpack::XNodeUnion::XNNAdd:
        case fb_xnnpack::XNodeUnion::XNNMultiply:
        case fb_xnnpack::XNodeUnion::XNNSubtract:
        case fb_xnnpack::XNodeUnion::XNNBatchMatrixMultiply:
          if (static_cast<fb_xnnpack::_XNNNode2x1*>(fields)->mutate_output_id(987654)) return;
          break;
        default: break;
      }
    }
    FAIL() << "no node of a known table with a stored output id";
  });
  EXPECT_NE(message.find("'s output_id 987654 is no value of the graph"), std::string::npos) << message;
}

TEST(XnnpackPayloadTest, DimensionsMissing) {
  std::string message = CheckDamaged([](uint8_t* payload, uint64_t) {
    auto* graph = GraphOf(payload);
    auto* value = graph->mutable_xvalues()->GetMutableObject(0);
    auto* tensor = const_cast<fb_xnnpack::XNNTensorValue*>(value->xvalue_union_as_XNNTensorValue());
    ASSERT_NE(tensor, nullptr);
    ASSERT_TRUE(tensor->mutate_num_dims(tensor->num_dims() + 3));
  });
  EXPECT_NE(message.find("value 0 states"), std::string::npos) << message;
  EXPECT_NE(message.find("dimensions but lists"), std::string::npos) << message;
}

TEST(XnnpackPayloadTest, ConstantOutsideItsData) {
  std::string message = CheckDamaged([](uint8_t* payload, uint64_t) {
    auto* graph = GraphOf(payload);
    for (size_t c = 1; c < graph->constant_data()->size(); ++c) {
      auto* entry = graph->mutable_constant_data()->GetMutableObject(static_cast<flatbuffers::uoffset_t>(c));
      if (entry->named_key() != nullptr && entry->named_key()->size() > 0) {
        const_cast<flatbuffers::String*>(entry->named_key())->data()[0] ^= 0x20;  // another name
        return;
      }
      if (entry->mutate_size(entry->size() + (uint64_t{1} << 34))) return;
    }
    FAIL() << "no constant to damage";
  });
  EXPECT_TRUE(message.find("lies outside the payload's constant data") != std::string::npos ||
              message.find("the program does not have") != std::string::npos)
      << message;
}

// Calls each method once with zeros of its largest shapes (the damage may show only
// when a delegate runs); whether a call fails does not matter, only that it returns.
constexpr int kTrials = 1000;

void CallEveryMethod(Session& session) {
  for (const std::string& method : session.all_methods()) {
    auto signature = session.Signature(method);
    if (!signature.ok()) continue;
    std::vector<Value> inputs;
    for (const auto& spec : signature->inputs) {
      if (spec.tag != executorch::runtime::Tag::Tensor) continue;
      inputs.push_back(Value(HostTensor::Zeros(spec.dtype, spec.max_sizes)));
    }
    (void)session.Execute(method, inputs);
  }
}

// Changes four random bytes kTrials times, in the back half of the file (the issue's
// reproduction: one of 300 such copies crashed pte_run) or inside the first XNNPACK
// payload itself, and opens each copy that passes the program check.
void DamageRandomly(const std::string& model, bool in_payload) {
  const Bytes original = Load(model);
  Bytes copy = original;
  uint64_t payload_size = 0;
  const size_t payload_start = static_cast<size_t>(FirstPayload(copy, &payload_size) - copy.data());
  std::uniform_int_distribution<size_t> where(in_payload ? payload_start : original.size / 2,
                                              in_payload ? payload_start + payload_size - 1 : original.size - 1);
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp ? tmp : "/tmp") + "/damaged.pte";
  std::mt19937 random(20261124);
  int refused = 0, loaded = 0, failed_to_load = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    Bytes program = original;
    for (int b = 0; b < 4; ++b) program.data()[where(random)] = static_cast<uint8_t>(random());
    if (!CheckProgram(program.data(), program.size).ok()) {
      ++refused;
      continue;
    }
    // Opened from a file, as pte_run does: the Session maps it, and a read past its end
    // is a SIGBUS rather than a quiet read of other heap memory.
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(program.data()), static_cast<std::streamsize>(program.size));
    }
    auto session = Session::Open(path);
    ++(session.ok() ? loaded : failed_to_load);
    if (session.ok()) CallEveryMethod(**session);
  }
  std::printf("%s, %s: %d damaged copies: %d refused by the program check, %d failed to load, %d loaded\n",
              model.c_str(), in_payload ? "its first XNNPACK payload" : "the back half", kTrials, refused,
              failed_to_load, loaded);
  EXPECT_EQ(refused + loaded + failed_to_load, kTrials);
}

TEST(XnnpackPayloadTest, RandomDamageNeverCrashes) {
  for (const std::string& model : g_models) {
    DamageRandomly(model, /*in_payload=*/false);
    DamageRandomly(model, /*in_payload=*/true);
  }
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <xnnpack.pte>...\n", argv[0]);
    return 2;
  }
  pteforge::g_models.assign(argv + 1, argv + argc);
  return RUN_ALL_TESTS();
}
