// Whisper's input features in C++: the log-mel spectrogram, in the two conventions
// Whisper's front ends disagree on, for a transcriber that takes a 16 kHz WAV file and
// nothing else.
//
//   LogMel log_mel(LogMelOptions{});                 // Whisper's: 80 mels, 30 s windows
//
//   // transformers' WhisperFeatureExtractor (feature_extraction_whisper.py), one window:
//   std::vector<float> features = log_mel.Compute(samples.data(), samples.size());
//   // [n_mels, frames()] row-major, frames() = window_samples / hop_length (3000)
//
//   // faster-whisper's FeatureExtractor (feature_extractor.py), the whole file, then
//   // its 30 s windows as faster-whisper's seek loop cuts them (transcribe.py, pad_or_trim):
//   Spectrogram all = log_mel.ComputeAll(samples.data(), samples.size());
//   std::vector<float> window = log_mel.Window(all, seek, size);   // [n_mels, frames()]
//
// Both: a periodic Hann window of n_fft samples every hop_length samples over the signal
// reflect-padded by n_fft / 2 on each side (torch.stft's and numpy's center=True), the
// power spectrum of each frame (the last frame dropped), the Slaney-scale,
// Slaney-normalized mel filter bank between 0 and 8 kHz, log10 with a floor of 1e-10,
// values below the maximum minus 8 raised to it, then (x + 4) / 4. They differ in what
// the signal is and over what the maximum is taken:
//
// - Compute (transformers): the signal is the samples zero-padded (or cut) to one
//   window's audio, and the maximum is that window's. The program export's conformance
//   (the transcriber, transformers' generate on the same features) is in this one.
// - ComputeAll (faster-whisper): the signal is the whole file with 160 zero samples
//   appended, F = (N + 160) / 160 frames for N samples (n_fft 400, hop 160), and ONE
//   maximum over all F frames: a loud passage anywhere raises the floor of every window.
//   Window() then cuts frames [seek, seek + size) and pads them to frames() with zeros
//   in the normalized log-mel space (0 is log10 = -4), not with silent audio. Long-form
//   transcription gives faster-whisper's tokens only on these features.
//
// Computed in double precision (the spectra by a mixed-radix FFT, fft.h): within 1e-4 of
// transformers' extractor and of faster-whisper's, which computes in float32
// (//cc/whisper:log_mel_test says the measured figures).
#ifndef PTEFORGE_CC_WHISPER_LOG_MEL_H_
#define PTEFORGE_CC_WHISPER_LOG_MEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cc/whisper/fft.h"

namespace pteforge {

struct LogMelOptions {
  int64_t sampling_rate = 16000;
  int64_t n_fft = 400;
  int64_t hop_length = 160;
  int64_t n_mels = 80;
  int64_t window_samples = 480000;  // 30 s: the encoder's 2 x max_source_positions frames
};

// A whole file's features (ComputeAll): [n_mels, frames] row-major.
struct Spectrogram {
  int64_t n_mels = 0;
  int64_t frames = 0;
  std::vector<float> values;
};

class LogMel {
 public:
  explicit LogMel(const LogMelOptions& options);

  // transformers' convention: the features of `count` samples (in [-1, 1]) as one
  // window, [n_mels, frames()].
  std::vector<float> Compute(const float* samples, size_t count) const;

  // faster-whisper's convention: the features of the whole file. Any count, 0 included:
  // the 160 appended zeros make at least one frame (the reflect padding then repeats
  // the signal's mirror image as numpy.pad does when the pad is longer than the signal).
  Spectrogram ComputeAll(const float* samples, size_t count) const;

  // faster-whisper's window: [all.n_mels, frames()], column j = all's frame seek + j for
  // j < size and 0 <= seek + j < all.frames, else 0 (pad_or_trim(all[:, seek:seek + size])).
  std::vector<float> Window(const Spectrogram& all, int64_t seek, int64_t size) const;

  int64_t frames() const { return options_.window_samples / options_.hop_length; }
  const LogMelOptions& options() const { return options_; }
  // The filter bank, [n_mels, n_fft / 2 + 1] row-major (as mel_filter_bank(...).T).
  const std::vector<double>& filters() const { return filters_; }

 private:
  // log10 of the mel energies of `frames` frames into out ([n_mels, frames]); the signal
  // is the `count` samples, zeros up to `length`, reflect-padded by n_fft / 2. Returns
  // the largest value.
  double LogMelFrames(const float* samples, int64_t count, int64_t length, int64_t frames, float* out) const;

  LogMelOptions options_;
  int64_t bins_;                 // n_fft / 2 + 1
  Fft fft_;
  std::vector<double> window_;   // periodic Hann, n_fft
  std::vector<double> filters_;
  std::vector<int64_t> first_bin_, end_bin_;  // each filter's nonzero bins: [first, end)
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_WHISPER_LOG_MEL_H_
