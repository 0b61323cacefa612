// Session tests against //models:stateful_pte: set_cache / get_cache / accumulate on a
// shared [4, 8] float cache (initially 0.5) and set_cache's private int64 counter.
//
// Usage: session_test <stateful.pte> <causal_lm.pte>   (stateful.report.json must sit next to
// the first; the second is a causal LM, whose state, a KV cache, starts as zeros)

#include "cc/runtime/session.h"
#include "cc/runtime/session_memory.h"

#include <gtest/gtest.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <thread>

namespace pteforge {
namespace {

std::string g_model;
std::string g_report;
std::string g_causal_lm;  // a causal LM's .pte: its state (the KV cache) starts as zeros

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

HostTensor Filled(std::vector<int64_t> sizes, float value) {
  HostTensor tensor = HostTensor::Zeros(ScalarType::Float, std::move(sizes));
  for (int64_t i = 0; i < tensor.numel(); ++i) tensor.mutable_data<float>()[i] = value;
  return tensor;
}

std::unique_ptr<Session> OpenModel() {
  auto session = Session::Open(g_model);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return session.ok() ? std::move(session.value()) : nullptr;
}

HostTensor Tensor(const StatusOr<std::vector<Value>>& outputs, size_t index = 0) {
  EXPECT_TRUE(outputs.ok()) << outputs.status().ToString();
  return outputs.ok() ? std::get<HostTensor>(outputs.value().at(index)) : HostTensor();
}

HostTensor GetCache(Session& session) {
  return Tensor(session.Execute("get_cache", {Filled({4, 8}, 0.0f)}));
}

int64_t SetCacheRows(Session& session, int64_t rows, float value) {
  HostTensor calls = Tensor(session.Execute("set_cache", {Filled({rows, 8}, value)}));
  return calls.data<int64_t>()[0];
}

void ExpectAll(const HostTensor& tensor, float value, int64_t begin = 0, int64_t end = -1) {
  if (end < 0) end = tensor.numel();
  for (int64_t i = begin; i < end; ++i) ASSERT_FLOAT_EQ(tensor.data<float>()[i], value) << "element " << i;
}

#if defined(__linux__)
// Resident pages of [data, data + size) (mincore), whole pages only.
size_t ResidentPages(uint8_t* data, size_t size) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) / page * page;
  std::vector<unsigned char> resident((end - begin) / page);
  EXPECT_EQ(mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()), 0);
  size_t count = 0;
  for (unsigned char r : resident) count += r & 1;
  return count;
}

// What lets a session give back the state it does not use yet (Session::ReturnUnusedPages)
// and reset a state of zeros without touching it: the range reads as zeros, its whole
// pages take no memory, and the bytes beside it stay.
TEST(SessionTest, HeapMemoryZeroesByGivingWholePagesBack) {
  HeapMemory memory;
  const size_t size = 1 << 20;
  auto planned = memory.PlannedBuffer(kStateBufferIndex, size);
  ASSERT_TRUE(planned.ok()) << planned.status().ToString();
  uint8_t* data = planned->data();
  std::memset(data, 0xAB, size);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  ASSERT_GE(ResidentPages(data, size), size / page - 1);
  // From 100 bytes in: the first partial page stays as it was.
  ASSERT_TRUE(memory.ZeroByReturningPages(data + 100, size - 200));
  // The pages wholly inside the range; those at its ends were written.
  const size_t whole_from = (page - reinterpret_cast<uintptr_t>(data + 100) % page) % page + 100;
  const size_t whole_to = size - 100 - reinterpret_cast<uintptr_t>(data + size - 100) % page;
  EXPECT_EQ(ResidentPages(data + whole_from, whole_to - whole_from), 0u);
  for (size_t i = 0; i < size; ++i) {
    ASSERT_EQ(data[i], i < 100 || i >= size - 100 ? 0xAB : 0) << "byte " << i;
  }
}
#endif

// A state that starts as zeros is reset without running reset_state (the arenas zeroed,
// their pages given back): afterwards it reads as zeros again, and the same prompt
// gives the same logits as in a fresh session.
TEST(SessionTest, AStateOfZerosResetsToZerosAndGivesTheSameResults) {
  auto opened = Session::Open(g_causal_lm);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Session& session = *opened.value();
  ASSERT_FALSE(session.state().empty());
  const HostTensor prompt = HostTensor::FromValues<int64_t>(ScalarType::Long, {1, 5}, {1, 7, 3, 9, 4});
  const HostTensor first = Tensor(session.Execute("prefill", {prompt}));
  bool written = false;
  for (const StateBuffer& buffer : session.state()) {
    auto value = session.ReadState(buffer.name);
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    for (uint8_t byte : value->bytes) written = written || byte != 0;
  }
  ASSERT_TRUE(written) << "prefill wrote nothing into the cache";
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(session.ResetState().ok());
    for (const StateBuffer& buffer : session.state()) {
      auto value = session.ReadState(buffer.name);
      ASSERT_TRUE(value.ok()) << value.status().ToString();
      for (uint8_t byte : value->bytes) ASSERT_EQ(byte, 0) << buffer.name << " after reset " << round;
    }
    const HostTensor again = Tensor(session.Execute("prefill", {prompt}));
    ASSERT_EQ(again.bytes, first.bytes) << "round " << round;
  }
}

TEST(SessionTest, ListsMethodsConstantsAndState) {
  auto session = OpenModel();
  EXPECT_EQ(session->methods(), (std::vector<std::string>{"set_cache", "get_cache", "accumulate"}));
  EXPECT_EQ(session->constants(), (std::vector<std::string>{"max_rows"}));
  ASSERT_EQ(session->state().size(), 2u);
  EXPECT_EQ(session->state()[0].name, "cache");
  EXPECT_TRUE(session->state()[0].shared);
  EXPECT_EQ(session->state()[0].nbytes, 4u * 8u * 4u);
  EXPECT_EQ(session->state()[1].name, "calls");
  EXPECT_FALSE(session->state()[1].shared);
  auto max_rows = session->Execute("max_rows", {});
  ASSERT_TRUE(max_rows.ok());
  EXPECT_EQ(std::get<int64_t>(max_rows->at(0)), 4);
  auto signature = session->Signature("set_cache");
  ASSERT_TRUE(signature.ok());
  EXPECT_EQ(signature->inputs.at(0).max_sizes, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(signature->inputs.at(0).dynamic, (std::vector<bool>{true, false}));
  EXPECT_EQ(signature->inputs.at(0).min_sizes, (std::vector<int64_t>{1, 8}));
}

TEST(SessionTest, StateStartsAtTheModulesValues) {
  auto session = OpenModel();
  auto cache = session->ReadState("cache");
  ASSERT_TRUE(cache.ok());
  ExpectAll(cache.value(), 0.5f);
  EXPECT_EQ(session->ReadState("calls")->data<int64_t>()[0], 0);
}

TEST(SessionTest, StateWrittenByOneMethodIsReadByAnother) {
  auto session = OpenModel();
  SetCacheRows(*session, 3, 2.0f);
  HostTensor cache = GetCache(*session);
  ExpectAll(cache, 2.0f, 0, 3 * 8);
  ExpectAll(cache, 0.5f, 3 * 8, 4 * 8);
  // accumulate reads and writes the cache; its column sums match what get_cache saw.
  HostTensor sums = Tensor(session->Execute("accumulate", {Filled({4, 8}, 0.0f)}));
  for (int col = 0; col < 8; ++col) EXPECT_FLOAT_EQ(sums.data<float>()[col], 3 * 2.0f + 0.5f);
}

TEST(SessionTest, StatePersistsAcrossManyCalls) {
  auto session = OpenModel();
  for (int64_t call = 1; call <= 60; ++call) {
    int64_t rows = 1 + call % 4;
    ASSERT_EQ(SetCacheRows(*session, rows, static_cast<float>(call)), call);
    ASSERT_TRUE(session->Execute("accumulate", {Filled({4, 8}, 0.0f)}).ok());
    HostTensor cache = GetCache(*session);
    ExpectAll(cache, static_cast<float>(call), 0, rows * 8);
  }
  EXPECT_EQ(session->ReadState("calls")->data<int64_t>()[0], 60);
}

TEST(SessionTest, ResetRestoresTheInitialValues) {
  auto session = OpenModel();
  SetCacheRows(*session, 4, 9.0f);
  SetCacheRows(*session, 4, 9.0f);
  ASSERT_TRUE(session->ResetState().ok());
  ExpectAll(GetCache(*session), 0.5f);
  EXPECT_EQ(SetCacheRows(*session, 1, 1.0f), 1);
}

TEST(SessionTest, ReadsAndWritesStateByName) {
  auto session = OpenModel();
  ASSERT_TRUE(session->WriteState("cache", Filled({4, 8}, 7.0f)).ok());
  ExpectAll(GetCache(*session), 7.0f);
  SetCacheRows(*session, 2, -1.0f);
  auto cache = session->ReadState("cache");
  ExpectAll(cache.value(), -1.0f, 0, 16);
  ExpectAll(cache.value(), 7.0f, 16, 32);

  Status wrong_shape = session->WriteState("cache", Filled({2, 8}, 1.0f));
  EXPECT_EQ(wrong_shape.message(), "state buffer 'cache' is float32 [4, 8]; got float32[2, 8]");
  auto unknown = session->ReadState("cahce");
  EXPECT_EQ(unknown.status().message(), "no state buffer 'cahce' (the program's state: cache, calls)");
}

TEST(SessionTest, OutputsAreCopiesNotViewsOfState) {
  auto session = OpenModel();
  auto state = session->Execute("get_state", {});  // returns the live buffers
  ASSERT_TRUE(state.ok());
  SetCacheRows(*session, 4, 3.0f);
  ExpectAll(std::get<HostTensor>(state->at(0)), 0.5f);
}

int64_t ReportNumber(const std::string& key) {
  std::smatch match;
  std::string report = ReadFile(g_report);
  if (!std::regex_search(report, match, std::regex("\"" + key + "\": ([0-9]+)"))) return -1;
  return std::stoll(match[1]);
}

TEST(SessionTest, PlannedMemoryIsMaxOverMethodsPlusStateAsTheReportSays) {
  auto session = OpenModel();
  size_t max_work = 0, sum_work = 0;
  for (const auto& name : session->all_methods()) {
    auto signature = session->Signature(name);
    ASSERT_TRUE(signature.ok());
    max_work = std::max(max_work, signature->planned_work_bytes);
    sum_work += signature->planned_work_bytes;
  }
  const MemoryUsage& memory = session->memory();
  EXPECT_GT(memory.state_arena_bytes, 0u);
  EXPECT_EQ(memory.work_arena_bytes, max_work);
  EXPECT_EQ(memory.total_planned_bytes(), max_work + memory.state_arena_bytes);
  EXPECT_EQ(memory.separate_arenas_bytes, sum_work + memory.state_arena_bytes);
  EXPECT_EQ(static_cast<int64_t>(memory.total_planned_bytes()), ReportNumber("total_planned_bytes_shared"));
  EXPECT_EQ(static_cast<int64_t>(memory.state_arena_bytes), ReportNumber("state_arena_bytes"));
  EXPECT_EQ(static_cast<int64_t>(memory.work_arena_bytes), ReportNumber("work_arena_bytes_shared"));
  EXPECT_EQ(static_cast<int64_t>(memory.separate_arenas_bytes), ReportNumber("total_planned_bytes_separate"));
}

struct BadCall {
  std::string method;
  std::vector<Value> inputs;
  std::string message;
};

TEST(SessionTest, BadCallsAreRefusedWithSpecificMessages) {
  auto session = OpenModel();
  HostTensor int_rows = HostTensor::Zeros(ScalarType::Long, {2, 8});
  std::vector<BadCall> cases = {
      {"nope", {}, "no method 'nope' in the program (its methods: set_cache, get_cache, accumulate)"},
      {"get_cache", {}, "method 'get_cache' takes 1 inputs, got 0"},
      {"get_cache", {Filled({4, 8}, 0), Filled({4, 8}, 0)}, "method 'get_cache' takes 1 inputs, got 2"},
      {"set_cache", {int_rows}, "method 'set_cache', input 0: expected dtype float32, got int64"},
      {"set_cache", {Filled({8}, 0)}, "method 'set_cache', input 0: expected rank 2 [4, 8], got rank 1 [8]"},
      {"set_cache", {Filled({5, 8}, 0)},
       "method 'set_cache', input 0: dimension 0 is 5, beyond its dynamic bound 4 (shape [5, 8])"},
      {"get_cache", {Filled({3, 8}, 0)}, "method 'get_cache', input 0: dimension 0 is 3, but must be 4 (shape [3, 8])"},
      {"set_cache", {Filled({2, 5}, 0)}, "method 'set_cache', input 0: dimension 1 is 5, but must be 8 (shape [2, 5])"},
      {"set_cache", {Filled({0, 8}, 0)},
       "method 'set_cache', input 0: dimension 0 is 0, below its dynamic minimum 1 (shape [0, 8])"},
      {"get_cache", {int64_t{3}}, "method 'get_cache', input 0: expected a tensor, got int"},
  };
  for (const auto& bad : cases) {
    auto result = session->Execute(bad.method, bad.inputs);
    ASSERT_FALSE(result.ok()) << bad.message;
    EXPECT_EQ(result.status().message(), bad.message);
  }
  // The session still works after refusing them.
  EXPECT_EQ(SetCacheRows(*session, 1, 1.0f), 1);
}

TEST(SessionTest, BadFilesAreRefusedWithSpecificMessages) {
  std::string bytes = ReadFile(g_model);
  ASSERT_GT(bytes.size(), 1000u);
  std::string corrupted = bytes;
  for (size_t i = 64; i < corrupted.size(); i += 7) corrupted[i] = static_cast<char>(corrupted[i] ^ 0x5a);
  struct Case {
    std::string name, bytes, message;
  };
  std::vector<Case> cases = {
      {"empty.pte", "", "is empty, not an ExecuTorch program"},
      {"truncated.pte", bytes.substr(0, bytes.size() / 2), "is not a valid ExecuTorch program"},
      {"corrupted.pte", corrupted, "is not a valid ExecuTorch program"},
      {"text.pte", "hello, I am not a model\n", "is not a valid ExecuTorch program"},
  };
  for (const auto& c : cases) {
    std::string path = TempPath(c.name);
    WriteFile(path, c.bytes);
    auto session = Session::Open(path);
    ASSERT_FALSE(session.ok()) << c.name;
    EXPECT_NE(session.status().message().find(c.message), std::string::npos)
        << c.name << ": " << session.status().message();
  }
  auto missing = Session::Open(TempPath("no-such-file.pte"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("No such file or directory"), std::string::npos);
  auto directory = Session::Open(TempPath(""));
  EXPECT_NE(directory.status().message().find("is not a regular file"), std::string::npos);
}

TEST(SessionTest, OpensAProgramInMemory) {
  std::string bytes = ReadFile(g_model);
  std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  auto session = Session::OpenBuffer(aligned.data(), bytes.size());
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  EXPECT_EQ(SetCacheRows(*session.value(), 2, 5.0f), 1);
  ExpectAll(GetCache(*session.value()), 5.0f, 0, 16);
  auto empty = Session::OpenBuffer(aligned.data(), 0);
  EXPECT_EQ(empty.status().message(), "the program buffer is empty, not an ExecuTorch program");
}

TEST(SessionTest, PlannedMemoryAboveTheLimitIsRefused) {
  SessionOptions options;
  options.max_planned_bytes = 100;
  auto session = Session::Open(g_model, options);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("bytes of planned memory, more than the limit of 100"),
            std::string::npos)
      << session.status().message();
}

TEST(SessionTest, ConcurrentCallsAreSerialized) {
  auto session = OpenModel();
  constexpr int kThreads = 4;
  constexpr int kCalls = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&session, t] {
      for (int i = 0; i < kCalls; ++i) {
        ASSERT_TRUE(session->Execute("set_cache", {Filled({4, 8}, static_cast<float>(t))}).ok());
        ASSERT_TRUE(session->Execute("get_cache", {Filled({4, 8}, 0.0f)}).ok());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(session->ReadState("calls")->data<int64_t>()[0], kThreads * kCalls);
  HostTensor cache = session->ReadState("cache").value();
  float first = cache.data<float>()[0];
  ExpectAll(cache, first);  // one writer's value everywhere: no interleaved writes
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::string model = argc == 3 ? argv[1] : "";
  if (model.size() <= 4 || model.compare(model.size() - 4, 4, ".pte") != 0) {
    std::fprintf(stderr, "usage: %s <stateful.pte> <causal_lm.pte>\n", argv[0]);
    return 2;
  }
  pteforge::g_model = model;
  pteforge::g_causal_lm = argv[2];
  pteforge::g_report = model.substr(0, model.size() - 4) + ".report.json";
  return RUN_ALL_TESTS();
}
