#include "cc/whisper/log_mel.h"

#include <algorithm>
#include <cmath>
#include <complex>

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

// faster-whisper's FeatureExtractor(waveform, padding=160): zeros appended before the STFT.
constexpr int64_t kAppendedZeros = 160;

// numpy.pad(mode="reflect")'s source index for index j of a signal of `length` values
// (j may be negative or past the end): the mirror image without repeating the edges,
// periodic with 2 (length - 1) when the pad is longer than the signal.
int64_t Reflect(int64_t j, int64_t length) {
  if (length == 1) return 0;  // numpy repeats a single value
  const int64_t period = 2 * (length - 1);
  j %= period;
  if (j < 0) j += period;
  return j < length ? j : period - j;
}

// (max(x, top - 8) + 4) / 4 for every value.
void Normalize(double top, std::vector<float>& values) {
  for (float& value : values) value = static_cast<float>((std::max<double>(value, top - 8.0) + 4.0) / 4.0);
}

}  // namespace

LogMel::LogMel(const LogMelOptions& options)
    : options_(options), bins_(options.n_fft / 2 + 1), fft_(options.n_fft) {
  const int64_t n = options_.n_fft;
  window_.resize(n);
  for (int64_t i = 0; i < n; ++i) window_[i] = 0.5 - 0.5 * std::cos(2.0 * kPi * i / n);
  filters_ = SlaneyFilters(bins_, options_.n_mels, options_.sampling_rate);
  // Each triangle covers a few bins: summing only those makes the mel step ~bins / 2
  // times cheaper than the dense [n_mels, bins] product.
  first_bin_.assign(options_.n_mels, 0);
  end_bin_.assign(options_.n_mels, 0);
  for (int64_t m = 0; m < options_.n_mels; ++m) {
    const double* filter = filters_.data() + m * bins_;
    int64_t first = 0, end = bins_;
    while (first < end && filter[first] == 0.0) ++first;
    while (end > first && filter[end - 1] == 0.0) --end;
    first_bin_[m] = first;
    end_bin_[m] = end;
  }
}

double LogMel::LogMelFrames(const float* samples, int64_t count, int64_t length, int64_t frames, float* out) const {
  const int64_t n = options_.n_fft, hop = options_.hop_length, half = n / 2;
  std::vector<double> frame(n), power(bins_);
  std::vector<std::complex<double>> spectrum(n);
  double top = -1e300;
  for (int64_t f = 0; f < frames; ++f) {
    const int64_t start = f * hop - half;  // the frame's first sample in the unpadded signal
    if (start >= 0 && start + n <= count) {
      for (int64_t i = 0; i < n; ++i) frame[i] = samples[start + i] * window_[i];
    } else {  // at the ends: the reflect padding, the appended zeros
      for (int64_t i = 0; i < n; ++i) {
        const int64_t j = Reflect(start + i, length);
        frame[i] = (j < count ? samples[j] : 0.0) * window_[i];
      }
    }
    fft_.Transform(frame.data(), spectrum.data());
    for (int64_t k = 0; k < bins_; ++k) power[k] = std::norm(spectrum[k]);
    for (int64_t m = 0; m < options_.n_mels; ++m) {
      const double* filter = filters_.data() + m * bins_;
      double mel = 0;
      for (int64_t k = first_bin_[m]; k < end_bin_[m]; ++k) mel += filter[k] * power[k];
      const double value = std::log10(std::max(mel, 1e-10));
      out[m * frames + f] = static_cast<float>(value);
      top = std::max(top, value);
    }
  }
  return top;
}

std::vector<float> LogMel::Compute(const float* samples, size_t count) const {
  // One window: the samples zero-padded or cut to its length; the last of frames() + 1
  // frames dropped.
  const int64_t length = options_.window_samples;
  std::vector<float> features(options_.n_mels * frames());
  const double top = LogMelFrames(samples, std::min<int64_t>(count, length), length, frames(), features.data());
  Normalize(top, features);
  return features;
}

Spectrogram LogMel::ComputeAll(const float* samples, size_t count) const {
  const int64_t n = options_.n_fft, half = n / 2;
  const int64_t length = static_cast<int64_t>(count) + kAppendedZeros;
  Spectrogram all;
  all.n_mels = options_.n_mels;
  // numpy's stft makes 1 + (padded length - n_fft) / hop frames; the last is dropped.
  all.frames = (length + 2 * half - n) / options_.hop_length;
  all.values.resize(all.n_mels * all.frames);
  const double top = LogMelFrames(samples, static_cast<int64_t>(count), length, all.frames, all.values.data());
  Normalize(top, all.values);  // one maximum for the whole file
  return all;
}

std::vector<float> LogMel::Window(const Spectrogram& all, int64_t seek, int64_t size) const {
  const int64_t width = frames();
  std::vector<float> window(all.n_mels * width, 0.0f);
  const int64_t first = std::max<int64_t>(0, -seek);
  const int64_t end = std::min({size, width, all.frames - seek});
  for (int64_t m = 0; m < all.n_mels; ++m) {
    for (int64_t j = first; j < end; ++j) window[m * width + j] = all.values[m * all.frames + seek + j];
  }
  return window;
}

}  // namespace pteforge
