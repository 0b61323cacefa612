#include "cc/seq2seq/translator_pool.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "cc/runtime/threads.h"

namespace pteforge {

StatusOr<std::unique_ptr<TranslatorPool>> TranslatorPool::Open(const std::string& path, int workers,
                                                               const SessionOptions& options) {
  if (workers < 1) return Failure(Error::InvalidArgument, "a translator pool needs at least one worker");
  if (workers > 1) PTEFORGE_RETURN_IF_ERROR(PrepareConcurrentSessions());
  std::unique_ptr<TranslatorPool> pool(new TranslatorPool());
  for (int w = 0; w < workers; ++w) {
    const auto start = std::chrono::steady_clock::now();
    auto translator = Translator::Open(path, options);
    if (!translator.ok()) return translator.status();
    if (w == 0) {
      pool->load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    pool->translators_.push_back(std::move(translator.value()));
  }
  return pool;
}

StatusOr<std::vector<StatusOr<Translation>>> TranslatorPool::Translate(const std::vector<std::string>& sentences,
                                                                       const TranslateOptions& options) {
  const size_t n = translators_.size(), share = (sentences.size() + n - 1) / n;
  std::vector<StatusOr<std::vector<StatusOr<Translation>>>> parts(n, std::vector<StatusOr<Translation>>());
  std::vector<std::thread> threads;
  for (size_t w = 0; w < n; ++w) {
    const size_t first = std::min(sentences.size(), w * share), last = std::min(sentences.size(), first + share);
    auto work = [&, w, first, last] {
      parts[w] = translators_[w]->Translate({sentences.begin() + first, sentences.begin() + last}, options);
    };
    if (w + 1 == n) {
      work();  // the last share on this thread
    } else {
      threads.emplace_back(work);
    }
  }
  for (auto& thread : threads) thread.join();
  std::vector<StatusOr<Translation>> results;
  for (auto& part : parts) {
    if (!part.ok()) return part.status();
    for (auto& result : part.value()) results.push_back(std::move(result));
  }
  return results;
}

}  // namespace pteforge
