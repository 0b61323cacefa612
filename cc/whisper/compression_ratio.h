// The compression ratio faster-whisper judges a decoded window by: a ratio above 2.4
// (compression_ratio_threshold) means repetitive text, and the window is decoded again
// at a higher temperature (docs/seq2seq.md, "Speech: transcribe").
//
//   double ratio = CompressionRatio(text);   // text: the window's decoded text, stripped
//
// faster-whisper's get_compression_ratio: len(b) / len(zlib.compress(b)) with b the
// text's UTF-8 bytes (its caller strips the text first; so must ours). zlib.compress is
// Python's zlib at its default level (Z_DEFAULT_COMPRESSION, which zlib takes as 6), and
// the length counts the 2-byte zlib header and the 4-byte Adler-32 trailer. So this is
// zlib's own compress2 at Z_DEFAULT_COMPRESSION, never another deflate implementation:
// deflate leaves the choice of matches and blocks to the compressor, and miniz or
// zlib-ng emit other (valid) streams of other lengths, so a ratio near 2.4 would fall on
// the other side and a window be re-decoded where faster-whisper keeps it, or the
// reverse. Checked against faster-whisper's function itself
// (//cc/whisper:compression_ratio_test, gen_compression_ratio_golden.py).
// The empty text has ratio 0, as in Python (0 bytes / an 8-byte stream).
#ifndef PTEFORGE_CC_WHISPER_COMPRESSION_RATIO_H_
#define PTEFORGE_CC_WHISPER_COMPRESSION_RATIO_H_

#include <string>

namespace pteforge {

// text.size() / the size of zlib's default-level stream of `text` (bytes, UTF-8).
double CompressionRatio(const std::string& text);

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_COMPRESSION_RATIO_H_
