// CachedAttention against a double-precision attention over the same buffers, on four
// lanes and (on x86-64 CPUs with AVX2) eight: several rows and heads, masked positions
// (skipped), rows that each attend their own slot (a beam's self-attention cache) or a
// part of one, or their histories' positions spread over the slots, a position bias repeated per slot, widths and head dimensions that are
// and are not multiples of the vectors, and a row with every position masked (the mean
// of the values, as eager's softmax of equal scores gives).
#include "cc/kernels/attention.h"

#include <gtest/gtest.h>

#include "cc/kernels/attention_lanes.h"
#include "cc/parallel/parallel_for.h"
#include "cc/simd/lanes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <thread>
#include <vector>

namespace pteforge {
namespace kernels {
namespace {

constexpr float kMasked = std::numeric_limits<float>::lowest();

enum class Masking {
  kNone,      // every position
  kRandom,    // 40% of positions at random; the last row none
  kSlots,     // row r attends the first r + 1 + 3 r positions of slot r (width / rows each)
  kHistory,   // row r attends positions 0..r + 8 of the slots, each in a random slot
              // (beam search's histories after reorders: cache.py's slot table)
};

struct Case {
  int32_t rows, heads, width, dim, positions;
  Masking masking;
  int32_t mask_rows = 0;  // rows r and r + mask_rows share a mask row (0: none do)
};

using Kernel = void (*)(const AttentionShape&, const AttentionArgs&);

template <void (*Heads)(const AttentionShape&, const AttentionArgs&, int32_t, int32_t, int32_t, int32_t)>
void AllHeads(const AttentionShape& shape, const AttentionArgs& args) {
  Heads(shape, args, 0, shape.heads, 0, shape.rows);
}

std::vector<double> Reference(const Case& c, const std::vector<float>& query, const std::vector<float>& keys,
                              const std::vector<float>& values, const std::vector<float>& mask,
                              const std::vector<float>& bias, float scale) {
  std::vector<double> out(static_cast<size_t>(c.rows) * c.heads * c.dim, 0.0);
  for (int32_t r = 0; r < c.rows; ++r) {
    for (int32_t h = 0; h < c.heads; ++h) {
      std::vector<double> scores(c.width);
      double top = -std::numeric_limits<double>::infinity();
      for (int32_t w = 0; w < c.width; ++w) {
        double s = 0;
        for (int32_t i = 0; i < c.dim; ++i) {
          s += static_cast<double>(query[(r * c.heads + h) * c.dim + i] * scale) * keys[(h * c.width + w) * c.dim + i];
        }
        if (c.positions) s += bias[h * c.positions + w % c.positions];
        const int32_t m = c.mask_rows > 0 ? r % c.mask_rows : r;
        if (c.masking != Masking::kNone) s += mask[m * c.width + w];
        // float32's addition of the lowest float absorbs any score, as in eager.
        if (c.masking != Masking::kNone && mask[m * c.width + w] == kMasked) s = kMasked;
        scores[w] = s;
        top = std::max(top, s);
      }
      double sum = 0;
      for (double& s : scores) sum += (s = std::exp(s - top));
      for (int32_t w = 0; w < c.width; ++w) {
        for (int32_t i = 0; i < c.dim; ++i) {
          out[(r * c.heads + h) * c.dim + i] += scores[w] / sum * values[(h * c.width + w) * c.dim + i];
        }
      }
    }
  }
  return out;
}

void ExpectEqualsTheDoublePrecisionAttention(Kernel kernel) {
  std::mt19937 generator(3);
  std::normal_distribution<float> draw(0.0f, 1.0f);
  std::bernoulli_distribution masked(0.4);
  for (const Case& c : {Case{1, 6, 1500, 64, 0, Masking::kNone}, Case{4, 2, 1500, 64, 0, Masking::kNone},
                        Case{4, 2, 48, 8, 12, Masking::kRandom}, Case{3, 3, 21, 7, 7, Masking::kRandom},
                        Case{2, 1, 5, 3, 0, Masking::kRandom}, Case{4, 3, 4 * 37, 64, 0, Masking::kSlots},
                        Case{3, 2, 3 * 30, 72, 30, Masking::kSlots}, Case{5, 2, 5 * 9, 20, 0, Masking::kSlots},
                        Case{7, 2, 3, 100, 0, Masking::kRandom}, Case{4, 3, 4 * 37, 64, 0, Masking::kHistory},
                        Case{3, 2, 3 * 30, 72, 30, Masking::kHistory},
                        // A causal LM's grouped heads: 3 heads x 4 positions, a mask row each.
                        Case{12, 2, 40, 64, 0, Masking::kRandom, 4}, Case{6, 3, 37, 16, 0, Masking::kSlots, 2}}) {
    const size_t buffer = static_cast<size_t>(c.heads) * c.width * c.dim;
    std::vector<float> query(static_cast<size_t>(c.rows) * c.heads * c.dim), keys(buffer), values(buffer);
    std::vector<float> mask(static_cast<size_t>(c.rows) * c.width, 0.0f);
    std::vector<float> bias(static_cast<size_t>(c.heads) * c.positions);
    for (auto* v : {&query, &keys, &values, &bias}) {
      for (float& x : *v) x = draw(generator);
    }
    if (c.masking == Masking::kRandom) {
      for (float& m : mask) m = masked(generator) ? kMasked : 0.0f;
      mask[0] = 0.0f;
      // The last row attends to nothing.
      std::fill(mask.end() - c.width, mask.end(), kMasked);
    } else if (c.masking == Masking::kSlots) {
      const int32_t slot = c.width / c.rows;
      std::fill(mask.begin(), mask.end(), kMasked);
      for (int32_t r = 0; r < c.rows; ++r) {
        const int32_t attended = std::min(slot, 1 + 4 * r);
        std::fill_n(mask.begin() + static_cast<size_t>(r) * c.width + r * slot, attended, 0.0f);
      }
    } else if (c.masking == Masking::kHistory) {
      const int32_t slot = c.width / c.rows;
      std::uniform_int_distribution<int32_t> slot_of(0, c.rows - 1);
      std::fill(mask.begin(), mask.end(), kMasked);
      for (int32_t r = 0; r < c.rows; ++r) {
        for (int32_t p = 0; p < std::min(slot, r + 9); ++p) {
          mask[static_cast<size_t>(r) * c.width + slot_of(generator) * slot + p] = 0.0f;
        }
      }
    }
    const float scale = 0.125f;
    const AttentionShape shape = {c.rows, c.heads, c.width, c.dim, c.positions, c.mask_rows};
    std::vector<float> scratch(AttentionScratchFloats(shape)), out(query.size(), NAN);
    AttentionArgs args{query.data(), keys.data(), values.data(), c.masking != Masking::kNone ? mask.data() : nullptr,
                       c.positions ? bias.data() : nullptr, scale, scratch.data(), out.data()};
    kernel(shape, args);
    const std::vector<double> expected = Reference(c, query, keys, values, mask, bias, scale);
    for (size_t i = 0; i < out.size(); ++i) {
      ASSERT_NEAR(out[i], expected[i], 1e-5) << "rows " << c.rows << " width " << c.width << " dim " << c.dim
                                             << " at " << i;
    }
  }
}

TEST(CachedAttention, EqualsTheDoublePrecisionAttentionOnFourLanes) {
  ExpectEqualsTheDoublePrecisionAttention(AllHeads<lanes4::CachedAttentionHeads>);
}

TEST(CachedAttention, EqualsTheDoublePrecisionAttentionOnEightLanes) {
#if defined(__x86_64__)
  if (simd::RunLanes() != 8) GTEST_SKIP() << "this CPU has no AVX2 and FMA";
  ExpectEqualsTheDoublePrecisionAttention(AllHeads<lanes8::CachedAttentionHeads>);
#else
  GTEST_SKIP() << "eight lanes are built for x86-64 only";
#endif
}

TEST(CachedAttention, RunsTheCpusWidestLanes) {
  // What attention.h's entry point runs is one of the two above, bit for bit.
  const Case c{4, 2, 48, 8, 12, Masking::kNone};
  std::vector<float> query(4 * 2 * 8, 0.5f), keys(2 * 48 * 8), values(2 * 48 * 8), bias(2 * 12, 0.25f);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = std::sin(0.1f * i), values[i] = std::cos(0.3f * i);
  const AttentionShape shape = {c.rows, c.heads, c.width, c.dim, c.positions};
  std::vector<float> scratch(AttentionScratchFloats(shape)), dispatched(query.size()), direct(query.size());
  CachedAttention(shape, {query.data(), keys.data(), values.data(), nullptr, bias.data(), 0.125f, scratch.data(),
                          dispatched.data()});
  Kernel widest = AllHeads<lanes4::CachedAttentionHeads>;
#if defined(__x86_64__)
  if (simd::RunLanes() == 8) widest = AllHeads<lanes8::CachedAttentionHeads>;
#endif
  widest(shape, {query.data(), keys.data(), values.data(), nullptr, bias.data(), 0.125f, scratch.data(),
                 direct.data()});
  EXPECT_EQ(dispatched, direct);
}

// A pool of two std::threads taking the indices in turn (as pthreadpool would, in
// some order).
void TwoThreads(parallel::Task task, void* context, size_t count) {
  std::thread other([&] {
    for (size_t i = count; i-- > 0;) {
      if (i % 2 == 1) task(context, 1, i);
    }
  });
  for (size_t i = 0; i < count; i += 2) task(context, 0, i);
  other.join();
}

// The kernel on one thread and shared by two, for a shape: the outputs bit for bit.
void ExpectTheSameBitsOnTwoWorkers(const AttentionShape& shape, const std::vector<float>& mask) {
  const size_t rows = shape.rows, heads = shape.heads, width = shape.width, dim = shape.head_dim;
  std::vector<float> query(rows * heads * dim), keys(heads * width * dim), values(heads * width * dim);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = std::sin(0.1f * i), values[i] = std::cos(0.3f * i);
  for (size_t i = 0; i < query.size(); ++i) query[i] = std::cos(0.7f * i);
  std::vector<float> scratch(2 * AttentionScratchFloats(shape)), serial(query.size()), shared(query.size());
  CachedAttention(shape, {query.data(), keys.data(), values.data(), mask.data(), nullptr, 0.125f, scratch.data(),
                          serial.data()});
  parallel::SetRunner(TwoThreads, 2);
  CachedAttention(shape, {query.data(), keys.data(), values.data(), mask.data(), nullptr, 0.125f, scratch.data(),
                          shared.data()},
                  2);
  parallel::SetRunner(nullptr, 1);
  EXPECT_EQ(serial, shared);
}

TEST(CachedAttention, HeadsSharedAmongWorkersGiveTheSameBits) {
  // SmolLM2's decode step: 3 key/value heads, 3 query rows each over a 64-position
  // cache, shared by two workers a row at a time. Each row its own mask, the rows'
  // spans different at both ends.
  std::vector<float> mask(3 * 64, 0.0f);
  std::fill(mask.begin() + 40, mask.begin() + 64, kMasked);  // row 0: [1, 40)
  mask[0] = kMasked;
  std::fill(mask.begin() + 128, mask.begin() + 131, kMasked);  // row 2: [3, 64)
  ExpectTheSameBitsOnTwoWorkers({3, 3, 64, 64, 0, 3}, mask);
  // One mask row for the three rows (as a decode step has it), masked past position 41.
  std::vector<float> one_row(64, 0.0f);
  std::fill(one_row.begin() + 41, one_row.end(), kMasked);
  ExpectTheSameBitsOnTwoWorkers({3, 3, 64, 64, 0, 1}, one_row);
  // A prefill of 5 tokens (15 rows, 5 mask rows) and 8 heads (whole heads per part).
  std::vector<float> causal(5 * 64, 0.0f);
  for (int token = 0; token < 5; ++token) std::fill(causal.begin() + token * 64 + 20 + token, causal.begin() + (token + 1) * 64, kMasked);
  ExpectTheSameBitsOnTwoWorkers({15, 3, 64, 64, 0, 5}, causal);
  ExpectTheSameBitsOnTwoWorkers({15, 8, 64, 64, 0, 5}, causal);
}

}  // namespace
}  // namespace kernels
}  // namespace pteforge
