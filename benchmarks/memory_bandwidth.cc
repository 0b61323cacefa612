// memory_bandwidth: how fast this machine's cores read memory, alone and together: what
// a decode step that reads every weight once per token is measured against (docs/llm.md,
// "Decode and threads": float32 decode reads at about this figure; the quantized programs'
// second thread stops short of it for other reasons). Each thread sums its share of one
// buffer far larger than the caches; the best of --rounds. A shared host's neighbours
// move it from minute to minute.
//
//   memory_bandwidth [--mb=1024] [--threads=1,2] [--rounds=7]
//
// Prints a table, and one JSON line on stderr: {"buffer_mb": ..., "read_gb_s": {"1": ..., "2": ...}}.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// The sum of the 64-bit words of [begin, end), four independent chains so that loads,
// not additions, set the pace.
uint64_t Sum(const uint64_t* begin, const uint64_t* end) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (const uint64_t* p = begin; p + 8 <= end; p += 8) {
    a += p[0] + p[4];
    b += p[1] + p[5];
    c += p[2] + p[6];
    d += p[3] + p[7];
  }
  return a + b + c + d;
}

// Seconds for `threads` threads to read the whole buffer once, each its own share.
double ReadOnce(const std::vector<uint64_t>& buffer, unsigned threads, uint64_t* sink) {
  std::vector<std::thread> workers;
  std::vector<uint64_t> sums(threads, 0);
  const size_t share = buffer.size() / threads;
  const auto start = std::chrono::steady_clock::now();
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const uint64_t* begin = buffer.data() + t * share;
      sums[t] = Sum(begin, begin + share);
    });
  }
  for (auto& worker : workers) worker.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (uint64_t s : sums) *sink += s;
  return seconds;
}

bool Flag(const char* arg, const char* name, std::string* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  *value = arg + length + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  size_t mb = 1024;
  unsigned rounds = 7;
  std::vector<unsigned> thread_counts = {1, 2};
  constexpr const char* kUsage =
      "usage: memory_bandwidth [--mb=1024] [--threads=1,2] [--rounds=7]\n"
      "  --mb=...       the buffer's size in MB (at least 64: far above the caches)\n"
      "  --threads=...  thread counts to measure, e.g. 1,2\n"
      "  --rounds=...   reads of the whole buffer per count; the fastest is reported\n";
  for (int i = 1; i < argc; ++i) {
    std::string value;
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("%s", kUsage);
      return 0;
    }
    if (Flag(argv[i], "--mb", &value)) {
      mb = std::strtoul(value.c_str(), nullptr, 10);
    } else if (Flag(argv[i], "--rounds", &value)) {
      rounds = static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10));
    } else if (Flag(argv[i], "--threads", &value)) {
      thread_counts.clear();
      for (const char* p = value.c_str(); *p;) {
        char* end = nullptr;
        thread_counts.push_back(static_cast<unsigned>(std::strtoul(p, &end, 10)));
        p = *end == ',' ? end + 1 : end;
        if (end == p && *p) break;
      }
    } else {
      std::fprintf(stderr, "memory_bandwidth: unknown flag %s\n%s", argv[i], kUsage);
      return 2;
    }
  }
  if (mb < 64 || rounds == 0 || thread_counts.empty()) {
    std::fprintf(stderr, "memory_bandwidth: --mb must be at least 64 (far above the caches), --rounds and "
                         "--threads at least 1\n");
    return 2;
  }
  for (unsigned t : thread_counts) {
    if (t == 0 || t > 256) {
      std::fprintf(stderr, "memory_bandwidth: a thread count must be 1 to 256\n");
      return 2;
    }
  }
  // Every page written first, so that the timed reads fault none in.
  std::vector<uint64_t> buffer(mb * (1 << 20) / sizeof(uint64_t));
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = i;
  uint64_t sink = 0;
  std::printf("| threads | read GB/s (best of %u, %zu MB) | / 1 thread |\n|---|---|---|\n", rounds, mb);
  std::string json = "{\"buffer_mb\": " + std::to_string(mb) + ", \"read_gb_s\": {";
  double one = 0;
  for (size_t i = 0; i < thread_counts.size(); ++i) {
    double best = 1e30;
    for (unsigned r = 0; r < rounds; ++r) {
      const double seconds = ReadOnce(buffer, thread_counts[i], &sink);
      best = seconds < best ? seconds : best;
    }
    const double gb_s = static_cast<double>(buffer.size() * sizeof(uint64_t)) / best / 1e9;
    if (thread_counts[i] == 1) one = gb_s;
    std::printf("| %u | %.1f | %s |\n", thread_counts[i], gb_s,
                one > 0 ? std::to_string(gb_s / one).substr(0, 4).c_str() : "-");
    char entry[64];
    std::snprintf(entry, sizeof(entry), "%s\"%u\": %.2f", i ? ", " : "", thread_counts[i], gb_s);
    json += entry;
  }
  std::fprintf(stderr, "%s}}\n", json.c_str());
  // The sums are used, so no read is optimized away.
  return sink == 42 ? 3 : 0;
}
