#include "cc/whisper/compression_ratio.h"

#include <zlib.h>

#include <cstdlib>
#include <vector>

namespace pteforge {

double CompressionRatio(const std::string& text) {
  uLongf compressed_size = compressBound(text.size());
  std::vector<Bytef> compressed(compressed_size);
  const int result = compress2(compressed.data(), &compressed_size,
                               reinterpret_cast<const Bytef*>(text.data()), text.size(),
                               Z_DEFAULT_COMPRESSION);
  // compressBound leaves no room for Z_BUF_ERROR and the level is valid: only
  // Z_MEM_ERROR is left, out of memory, which ends the program as a failed new does.
  if (result != Z_OK) std::abort();
  return static_cast<double>(text.size()) / static_cast<double>(compressed_size);
}

}  // namespace pteforge
