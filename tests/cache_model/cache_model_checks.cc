#include "tests/cache_model/cache_model_checks.h"

#include <cstdio>
#include <string>
#include <vector>

namespace pteforge {
namespace {

constexpr int64_t kRows = 10;
constexpr int64_t kColumns = 20;

// What the cache holds after the calls so far, as eager PyTorch would have it.
struct ExpectedCache {
  float values[kRows][kColumns] = {};
};

// A rows x columns tensor holding base + step * (r * 20 + c) at [r, c]: distinct values
// per cache element when step is 1, a constant when it is 0.
HostTensor Tensor(int64_t rows, int64_t columns, float base, float step = 0.0f) {
  HostTensor tensor = HostTensor::Zeros(ScalarType::Float, {rows, columns});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c) {
      tensor.mutable_data<float>()[r * columns + c] = base + step * static_cast<float>(r * kColumns + c);
    }
  }
  return tensor;
}

Status SetCache(Session& session, const HostTensor& data, ExpectedCache* expected) {
  auto outputs = session.Execute("set_cache", {data});
  if (!outputs.ok()) return outputs.status();
  for (int64_t r = 0; r < data.sizes[0]; ++r) {
    for (int64_t c = 0; c < data.sizes[1]; ++c) expected->values[r][c] = data.data<float>()[r * data.sizes[1] + c];
  }
  return Status();
}

// get_cache into a tensor of `rows` x `columns` filled with `fill`: the caller's tensor
// must hold the cache's first rows and columns afterwards.
Status GetCacheMatches(Session& session, int64_t rows, int64_t columns, float fill, const ExpectedCache& expected) {
  std::vector<Value> inputs = {Tensor(rows, columns, fill)};
  HostTensor& data = std::get<HostTensor>(inputs[0]);
  const float* bytes_before = data.data<float>();
  auto outputs = session.ExecuteInPlace("get_cache", &inputs);
  if (!outputs.ok()) return outputs.status();
  if (data.data<float>() != bytes_before) {
    return Failure(Error::Internal, "get_cache [%lld, %lld]: the caller's tensor was replaced, not written",
                   static_cast<long long>(rows), static_cast<long long>(columns));
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < columns; ++c) {
      float got = data.data<float>()[r * columns + c];
      if (got != expected.values[r][c]) {
        return Failure(Error::Internal, "get_cache [%lld, %lld]: element [%lld, %lld] is %g, the cache holds %g",
                       static_cast<long long>(rows), static_cast<long long>(columns), static_cast<long long>(r),
                       static_cast<long long>(c), got, expected.values[r][c]);
      }
    }
  }
  return Status();
}

Status Check(bool ok, const char* what) {
  return ok ? Status() : Failure(Error::Internal, "%s", what);
}

}  // namespace

Status CheckCacheModel(Session& session) {
  ExpectedCache expected;
  auto get = session.Signature("get_cache");
  if (!get.ok()) return get.status();
  PTEFORGE_RETURN_IF_ERROR(Check(get->written_inputs == std::vector<size_t>{0} && get->inputs.size() == 1,
                                 "the signature of get_cache does not say that it writes its input 0"));
  auto set = session.Signature("set_cache");
  if (!set.ok()) return set.status();
  PTEFORGE_RETURN_IF_ERROR(Check(set->written_inputs.empty(), "set_cache should write no input"));
  auto refused = session.Execute("get_cache", {Tensor(kRows, kColumns, 0.0f)});
  PTEFORGE_RETURN_IF_ERROR(Check(!refused.ok() && refused.status().message().find("ExecuteInPlace") != std::string::npos,
                                 "Execute of get_cache, which writes its input, was not refused"));

  // The original test: ones in, a zeros tensor out holds ones.
  PTEFORGE_RETURN_IF_ERROR(SetCache(session, Tensor(kRows, kColumns, 1.0f), &expected));
  PTEFORGE_RETURN_IF_ERROR(GetCacheMatches(session, kRows, kColumns, 0.0f, expected));
  std::printf("cache_model: ones [10, 20] in through set_cache; a zeros [10, 20] tensor given to get_cache holds ones\n");

  // Partial sizes: a block written, read back whole, at its own size and at 1 x 1.
  const int64_t sizes[][2] = {{3, 7}, {kRows, 1}, {1, kColumns}, {1, 1}, {kRows, kColumns}, {4, kColumns}, {kRows, 13}};
  float base = 0.0f;
  for (const auto& size : sizes) {
    base += 1000.0f;
    HostTensor data = Tensor(size[0], size[1], base, 1.0f);
    PTEFORGE_RETURN_IF_ERROR(SetCache(session, data, &expected));
    PTEFORGE_RETURN_IF_ERROR(GetCacheMatches(session, kRows, kColumns, 0.0f, expected));
    PTEFORGE_RETURN_IF_ERROR(GetCacheMatches(session, size[0], size[1], -1.0f, expected));
    PTEFORGE_RETURN_IF_ERROR(GetCacheMatches(session, 1, 1, -1.0f, expected));
    std::printf("cache_model: set_cache [%lld, %lld], then get_cache [10, 20], [%lld, %lld] and [1, 1] read it back\n",
                static_cast<long long>(size[0]), static_cast<long long>(size[1]), static_cast<long long>(size[0]),
                static_cast<long long>(size[1]));
  }

  // reset_state: the cache starts over at zeros.
  PTEFORGE_RETURN_IF_ERROR(session.ResetState());
  expected = ExpectedCache();
  PTEFORGE_RETURN_IF_ERROR(GetCacheMatches(session, kRows, kColumns, 7.0f, expected));
  std::printf("cache_model: after reset_state, get_cache reads zeros\n");
  return Status();
}

}  // namespace pteforge
