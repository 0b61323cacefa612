// TranslatorPool: several Translators on one program, each translating its own share
// of the sentences on its own thread (translate --workers): throughput for many
// sentences at once, where one Translator runs one batch at a time.
//
//   auto pool = TranslatorPool::Open("bergamot_enpt.pte", /*workers=*/2, {});
//   auto results = pool.value()->Translate(sentences, options);
//
// Each Translator has its own Session (and memory) over the program. Not thread-safe
// itself: one Translate call at a time.
#ifndef PTEFORGE_CC_SEQ2SEQ_TRANSLATOR_POOL_H_
#define PTEFORGE_CC_SEQ2SEQ_TRANSLATOR_POOL_H_

#include <memory>
#include <string>
#include <vector>

#include "cc/runtime/session.h"
#include "cc/seq2seq/translator.h"

namespace pteforge {

class TranslatorPool {
 public:
  // Opens `workers` (>= 1) Translators on the program at `path`. With more than one,
  // XNNPACK is first prepared for Sessions running at once (PrepareConcurrentSessions,
  // cc/runtime/threads.h), so leave options.share_packed_weights off.
  static StatusOr<std::unique_ptr<TranslatorPool>> Open(const std::string& path, int workers,
                                                        const SessionOptions& options);

  size_t size() const { return translators_.size(); }
  // The first Translator: the model's info and tokenizer, and the one that translates
  // alone when a caller times sentences one at a time.
  Translator& first() { return *translators_.front(); }
  // Milliseconds the first Translator took to open: what loading the program costs.
  double load_ms() const { return load_ms_; }

  // Splits `sentences` into one contiguous share per Translator, each translated on a
  // thread of its own; the results in input order (Translator::Translate's).
  StatusOr<std::vector<StatusOr<Translation>>> Translate(const std::vector<std::string>& sentences,
                                                         const TranslateOptions& options);

 private:
  TranslatorPool() = default;

  std::vector<std::unique_ptr<Translator>> translators_;
  double load_ms_ = 0;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_TRANSLATOR_POOL_H_
