#include "cc/whisper/log_mel.h"

#include <algorithm>
#include <cmath>

namespace pteforge {
namespace {

constexpr double kPi = 3.14159265358979323846;

// transformers.audio_utils.hertz_to_mel / mel_to_hertz with mel_scale="slaney":
// linear below 1 kHz, logarithmic above.
constexpr double kMinLogHertz = 1000.0;
constexpr double kMinLogMel = 15.0;

double LogStep() { return 27.0 / std::log(6.4); }

double HertzToMel(double hertz) {
  if (hertz < kMinLogHertz) return 3.0 * hertz / 200.0;
  return kMinLogMel + std::log(hertz / kMinLogHertz) * LogStep();
}

double MelToHertz(double mel) {
  if (mel < kMinLogMel) return 200.0 * mel / 3.0;
  return kMinLogHertz * std::exp((mel - kMinLogMel) / LogStep());
}

// mel_filter_bank(num_frequency_bins, num_mel_filters, 0, 8000, sampling_rate,
// norm="slaney", mel_scale="slaney"), transposed: [n_mels, bins].
std::vector<double> SlaneyFilters(int64_t bins, int64_t n_mels, int64_t sampling_rate) {
  const double mel_min = HertzToMel(0.0), mel_max = HertzToMel(8000.0);
  std::vector<double> centers(n_mels + 2);  // np.linspace(mel_min, mel_max, n_mels + 2), in hertz
  for (int64_t i = 0; i < n_mels + 2; ++i) {
    centers[i] = MelToHertz(mel_min + (mel_max - mel_min) * static_cast<double>(i) / static_cast<double>(n_mels + 1));
  }
  const double nyquist = static_cast<double>(sampling_rate / 2);  // sampling_rate // 2
  std::vector<double> filters(n_mels * bins);
  for (int64_t m = 0; m < n_mels; ++m) {
    const double enorm = 2.0 / (centers[m + 2] - centers[m]);
    for (int64_t k = 0; k < bins; ++k) {
      const double frequency = nyquist * static_cast<double>(k) / static_cast<double>(bins - 1);
      const double down = (frequency - centers[m]) / (centers[m + 1] - centers[m]);
      const double up = (centers[m + 2] - frequency) / (centers[m + 2] - centers[m + 1]);
      filters[m * bins + k] = std::max(0.0, std::min(down, up)) * enorm;
    }
  }
  return filters;
}

}  // namespace

LogMel::LogMel(const LogMelOptions& options) : options_(options), bins_(options.n_fft / 2 + 1) {
  const int64_t n = options_.n_fft;
  window_.resize(n);
  for (int64_t i = 0; i < n; ++i) window_[i] = 0.5 - 0.5 * std::cos(2.0 * kPi * i / n);
  cosines_.resize(bins_ * n);
  sines_.resize(bins_ * n);
  for (int64_t k = 0; k < bins_; ++k) {
    for (int64_t i = 0; i < n; ++i) {
      const double angle = 2.0 * kPi * static_cast<double>((k * i) % n) / n;
      cosines_[k * n + i] = std::cos(angle);
      sines_[k * n + i] = std::sin(angle);
    }
  }
  filters_ = SlaneyFilters(bins_, options_.n_mels, options_.sampling_rate);
}

std::vector<float> LogMel::Compute(const float* samples, size_t count) const {
  const int64_t n = options_.n_fft, hop = options_.hop_length, half = n / 2;
  const int64_t length = options_.window_samples, frames = this->frames();
  // The window: the samples, zero-padded or cut to its length, then reflect-padded.
  std::vector<double> padded(length + 2 * half, 0.0);
  for (int64_t i = 0; i < length; ++i) padded[half + i] = i < static_cast<int64_t>(count) ? samples[i] : 0.0;
  for (int64_t i = 0; i < half; ++i) {
    padded[half - 1 - i] = padded[half + 1 + i];
    padded[half + length + i] = padded[half + length - 2 - i];
  }
  std::vector<double> log_mel(options_.n_mels * frames);
  std::vector<double> frame(n), power(bins_);
  double top = -1e300;
  for (int64_t f = 0; f < frames; ++f) {  // the last of frames + 1 is dropped
    for (int64_t i = 0; i < n; ++i) frame[i] = padded[f * hop + i] * window_[i];
    for (int64_t k = 0; k < bins_; ++k) {
      double re = 0, im = 0;
      const double* c = cosines_.data() + k * n;
      const double* s = sines_.data() + k * n;
      for (int64_t i = 0; i < n; ++i) {
        re += frame[i] * c[i];
        im -= frame[i] * s[i];
      }
      power[k] = re * re + im * im;
    }
    for (int64_t m = 0; m < options_.n_mels; ++m) {
      const double* filter = filters_.data() + m * bins_;
      double mel = 0;
      for (int64_t k = 0; k < bins_; ++k) mel += filter[k] * power[k];
      const double value = std::log10(std::max(mel, 1e-10));
      log_mel[m * frames + f] = value;
      top = std::max(top, value);
    }
  }
  std::vector<float> features(log_mel.size());
  for (size_t i = 0; i < log_mel.size(); ++i) {
    features[i] = static_cast<float>((std::max(log_mel[i], top - 8.0) + 4.0) / 4.0);
  }
  return features;
}

}  // namespace pteforge
