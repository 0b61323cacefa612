// Whisper's input features in C++: the log-mel spectrogram transformers'
// WhisperFeatureExtractor computes (feature_extraction_whisper.py), for a transcriber
// that takes a 16 kHz WAV file and nothing else.
//
//   LogMel log_mel(LogMelOptions{});                 // Whisper's: 80 mels, 30 s windows
//   std::vector<float> features = log_mel.Compute(samples.data(), samples.size());
//   // [n_mels, frames] row-major, frames = window_samples / hop_length (3000)
//
// The steps are the extractor's: the samples zero-padded (or cut) to one window, a
// periodic Hann window of n_fft samples every hop_length samples over the window
// reflect-padded by n_fft / 2 on each side (torch.stft's center=True), the power
// spectrum of each frame (the last frame dropped), the Slaney-scale, Slaney-normalized
// mel filter bank between 0 and 8 kHz (transformers' mel_filter_bank), log10 with a
// floor of 1e-10, values below the window's maximum minus 8 raised to it, then
// (x + 4) / 4. Computed in double precision: within 1e-4 of the extractor's float32
// (//cc/whisper:log_mel_test).
#ifndef PTEFORGE_CC_WHISPER_LOG_MEL_H_
#define PTEFORGE_CC_WHISPER_LOG_MEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pteforge {

struct LogMelOptions {
  int64_t sampling_rate = 16000;
  int64_t n_fft = 400;
  int64_t hop_length = 160;
  int64_t n_mels = 80;
  int64_t window_samples = 480000;  // 30 s: the encoder's 2 x max_source_positions frames
};

class LogMel {
 public:
  explicit LogMel(const LogMelOptions& options);

  // The features of `count` samples (in [-1, 1]) as one window: [n_mels, frames].
  std::vector<float> Compute(const float* samples, size_t count) const;

  int64_t frames() const { return options_.window_samples / options_.hop_length; }
  const LogMelOptions& options() const { return options_; }
  // The filter bank, [n_mels, n_fft / 2 + 1] row-major (as mel_filter_bank(...).T).
  const std::vector<double>& filters() const { return filters_; }

 private:
  LogMelOptions options_;
  int64_t bins_;                 // n_fft / 2 + 1
  std::vector<double> window_;   // periodic Hann, n_fft
  std::vector<double> cosines_;  // [bins, n_fft]: cos(2 pi k n / n_fft)
  std::vector<double> sines_;
  std::vector<double> filters_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_LOG_MEL_H_
