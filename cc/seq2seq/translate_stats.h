// TranslateStats: where an encoder-decoder model's time went (MarianModel times its
// calls; TranslationModel and WhisperModel report it).
#ifndef PTEFORGE_CC_SEQ2SEQ_TRANSLATE_STATS_H_
#define PTEFORGE_CC_SEQ2SEQ_TRANSLATE_STATS_H_

#include <cstdint>

namespace pteforge {

// Summed since the model was opened or last reset.
struct TranslateStats {
  double encode_ms = 0;
  double decode_ms = 0;   // decode steps and cache reorders
  int64_t steps = 0;      // decoder steps (each for all rows of a batch)
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_SEQ2SEQ_TRANSLATE_STATS_H_
