#include "cc/vad/printer.h"

namespace pteforge {

ResultPrinter::ResultPrinter(std::FILE* out, const PrintOptions& options, std::string label)
    : out_(out), options_(options), prefix_(label.empty() ? "" : label + " ") {}

void ResultPrinter::Drain(VadStream& stream, bool finished) {
  bool printed = false;
  if (options_.probabilities) {
    for (float probability : stream.TakeProbabilities()) {
      // %.9g: the float32 exactly (it reads back as the same float).
      std::fprintf(out_, "%sprob %lld %.9g\n", prefix_.c_str(), static_cast<long long>(chunk_++),
                   static_cast<double>(probability));
      printed = true;
    }
  } else {
    stream.TakeProbabilities();  // not kept
  }
  for (const Segment& segment : stream.TakeSegments()) waiting_.push_back(segment);
  const TimeFormat format{options_.units, options_.time_resolution, stream.sample_rate()};
  size_t ready = 0;
  while (ready < waiting_.size() && (finished || EndIsKnown(waiting_[ready], format, stream.samples()))) {
    std::fprintf(out_, "%s%s\n", prefix_.c_str(), FormatSegment(waiting_[ready], format, stream.samples()).c_str());
    ++ready;
  }
  waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(ready));
  if (printed || ready > 0) std::fflush(out_);
}

}  // namespace pteforge
