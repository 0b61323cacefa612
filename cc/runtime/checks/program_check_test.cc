// CheckProgram on //models:stateful_pte and on copies of it corrupted in one place each.
//
// Usage: program_check_test <stateful.pte>

#include "cc/runtime/checks/program_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>

#include "program_generated.h"

namespace pteforge {
namespace {

namespace fb = executorch_flatbuffer;

std::string g_model;

// The model's bytes, 8-byte aligned.
std::vector<uint64_t> LoadModel(size_t* size) {
  std::ifstream in(g_model, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> words((bytes.size() + 7) / 8);
  std::memcpy(words.data(), bytes.data(), bytes.size());
  *size = bytes.size();
  return words;
}

// Applies `corrupt` to the first method's plan of a fresh copy and checks the result.
std::string CheckCorrupted(const std::function<void(fb::ExecutionPlan*)>& corrupt) {
  size_t size;
  std::vector<uint64_t> words = LoadModel(&size);
  auto* program = fb::GetMutableProgram(words.data());
  corrupt(program->mutable_execution_plan()->GetMutableObject(0));
  Status status = CheckProgram(reinterpret_cast<const uint8_t*>(words.data()), size);
  return status.ok() ? "ok" : status.message();
}

// The index of the first value of kind `type` in `plan`.
int32_t FindValue(const fb::ExecutionPlan* plan, fb::KernelTypes type) {
  for (size_t i = 0; i < plan->values()->size(); ++i) {
    if (plan->values()->Get(i)->val_type() == type) return static_cast<int32_t>(i);
  }
  return -1;
}

// The first kernel call, or the first with a non-zero operator index (flatbuffers
// stores no default values, and only stored fields can be changed in place).
fb::KernelCall* FirstKernelCall(fb::ExecutionPlan* plan, bool nonzero_op = false) {
  auto* instructions = plan->mutable_chains()->GetMutableObject(0)->mutable_instructions();
  for (size_t i = 0; i < instructions->size(); ++i) {
    auto* instruction = instructions->GetMutableObject(i);
    const auto* call = instruction->instr_args_as_KernelCall();
    if (call != nullptr && (!nonzero_op || call->op_index() != 0)) return const_cast<fb::KernelCall*>(call);
  }
  return nullptr;
}

TEST(ProgramCheckTest, TheExportedProgramPasses) {
  EXPECT_EQ(CheckCorrupted([](fb::ExecutionPlan*) {}), "ok");
}

TEST(ProgramCheckTest, NotAProgram) {
  std::vector<uint64_t> junk(64, 0x0123456789abcdefULL);
  Status status = CheckProgram(reinterpret_cast<const uint8_t*>(junk.data()), junk.size() * 8);
  EXPECT_EQ(status.message(), "the program's structure is invalid (flatbuffer verification failed)");
}

TEST(ProgramCheckTest, AnOutputOutOfRange) {
  std::string message = CheckCorrupted([](fb::ExecutionPlan* plan) { plan->mutable_outputs()->Mutate(0, 9999); });
  EXPECT_NE(message.find("an output refers to value 9999 of"), std::string::npos) << message;
}

TEST(ProgramCheckTest, AMissingOperator) {
  std::string message = CheckCorrupted([](fb::ExecutionPlan* plan) {
    fb::KernelCall* call = FirstKernelCall(plan, /*nonzero_op=*/true);
    ASSERT_NE(call, nullptr);
    ASSERT_TRUE(call->mutate_op_index(77));
  });
  EXPECT_NE(message.find("calls a missing operator"), std::string::npos) << message;
}

TEST(ProgramCheckTest, AKernelArgumentOfTheWrongKind) {
  std::string message = CheckCorrupted([](fb::ExecutionPlan* plan) {
    fb::KernelCall* call = FirstKernelCall(plan);
    ASSERT_NE(call, nullptr);
    int32_t other = FindValue(plan, fb::KernelTypes::Null);
    if (other < 0) other = FindValue(plan, fb::KernelTypes::IntList);
    ASSERT_GE(other, 0);
    // Replace the first tensor argument by a value of another kind.
    for (size_t a = 0; a < call->args()->size(); ++a) {
      if (plan->values()->Get(call->args()->Get(a))->val_type() == fb::KernelTypes::Tensor) {
        const_cast<flatbuffers::Vector<int32_t>*>(call->args())->Mutate(a, other);
        break;
      }
    }
  });
  EXPECT_NE(message.find("passes a value of the wrong kind as argument"), std::string::npos) << message;
}

TEST(ProgramCheckTest, ATensorOutsideItsPlannedMemory) {
  std::string message = CheckCorrupted([](fb::ExecutionPlan* plan) {
    for (size_t i = 0; i < plan->values()->size(); ++i) {
      auto* value = plan->mutable_values()->GetMutableObject(i);
      auto* tensor = const_cast<fb::Tensor*>(value->val_as_Tensor());
      if (tensor != nullptr && tensor->allocation_info() != nullptr &&
          tensor->allocation_info()->memory_offset_low() != 0) {
        ASSERT_TRUE(const_cast<fb::AllocationDetails*>(tensor->allocation_info())->mutate_memory_offset_low(1u << 30));
        return;
      }
    }
  });
  EXPECT_NE(message.find("lies outside planned memory id"), std::string::npos) << message;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <model.pte>\n", argv[0]);
    return 2;
  }
  pteforge::g_model = argv[1];
  return RUN_ALL_TESTS();
}
