#include "cc/replay/replay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace pteforge {
namespace {

constexpr char kFormat[] = "pteforge-replay 1";

bool IsFloatingPoint(ScalarType dtype) {
  return dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Half ||
         dtype == ScalarType::BFloat16;
}

std::string Shape(const std::vector<int64_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
  return text + "]";
}

// Splits "word rest" at the first space.
std::pair<std::string, std::string> Split(const std::string& line) {
  size_t space = line.find(' ');
  if (space == std::string::npos) return {line, ""};
  return {line.substr(0, space), line.substr(space + 1)};
}

}  // namespace

StatusOr<Replay> ParseReplay(const std::string& text) {
  Replay replay;
  bool header = false, tolerance = false;
  size_t start = 0;
  int number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto fail = [&](const std::string& what) {
      return Failure(Error::InvalidArgument, "replay record, line %d: %s", number, what.c_str());
    };
    if (!header) {
      if (line != kFormat) return fail("expected '" + std::string(kFormat) + "' (not a pteforge replay record?)");
      header = true;
      continue;
    }
    auto [keyword, rest] = Split(line);
    if (keyword == "program") {
      replay.program = rest;
    } else if (keyword == "tolerance") {
      char* after_atol = nullptr;
      replay.tolerance.atol = std::strtod(rest.c_str(), &after_atol);
      char* after_rtol = nullptr;
      replay.tolerance.rtol = std::strtod(after_atol, &after_rtol);
      const char* flag = after_rtol;
      while (*flag == ' ') ++flag;
      const std::string word(flag);  // nothing, or "scaled"
      if (after_atol == rest.c_str() || after_rtol == after_atol || !(word.empty() || word == "scaled")) {
        return fail("expected 'tolerance <atol> <rtol>' or 'tolerance <atol> <rtol> scaled'");
      }
      replay.tolerance.scaled = word == "scaled";
      tolerance = true;
    } else if (keyword == "state") {
      auto [name, literal] = Split(rest);
      auto value = ParseValue(literal);
      if (!value.ok()) return fail("state " + name + ": " + value.status().message());
      auto& list = replay.calls.empty() ? replay.initial_state : replay.calls.back().state_after;
      list.emplace_back(name, std::move(value.value()));
    } else if (keyword == "call") {
      auto call = ParseCall(rest);
      if (!call.ok()) return fail(call.status().message());
      replay.calls.push_back(ReplayCall{std::move(call.value()), {}, {}, {}});
    } else if (keyword == "output" || keyword == "written") {
      if (replay.calls.empty()) return fail("'" + keyword + "' before any call");
      auto [index_text, literal] = Split(rest);
      char* end_index = nullptr;
      long index = std::strtol(index_text.c_str(), &end_index, 10);
      if (index_text.empty() || *end_index != '\0' || index < 0) return fail("expected '" + keyword + " <index> <value>'");
      auto value = ParseValue(literal);
      if (!value.ok()) return fail(keyword + " " + index_text + ": " + value.status().message());
      auto& list = keyword == "output" ? replay.calls.back().outputs : replay.calls.back().written;
      list.emplace_back(static_cast<size_t>(index), std::move(value.value()));
    } else {
      return fail("unknown line '" + keyword + "' (expected program, tolerance, state, call, output or written)");
    }
  }
  if (!header) return Failure(Error::InvalidArgument, "the replay record is empty");
  if (!tolerance) return Failure(Error::InvalidArgument, "the replay record has no tolerance line");
  return replay;
}

Status CompareValue(const Value& want, const Value& got, const Tolerance& tolerance, double* max_abs_error) {
  const double rtol = tolerance.rtol;
  double atol = tolerance.atol;
  if (const auto* w = std::get_if<HostTensor>(&want)) {
    const auto* g = std::get_if<HostTensor>(&got);
    if (g == nullptr) return Failure(Error::InvalidArgument, "expected a tensor, got %s", DescribeValue(got).c_str());
    if (g->dtype != w->dtype || g->sizes != w->sizes) {
      return Failure(Error::InvalidArgument, "expected %s %s, got %s %s", DTypeName(w->dtype), Shape(w->sizes).c_str(),
                     DTypeName(g->dtype), Shape(g->sizes).c_str());
    }
    bool floating = IsFloatingPoint(w->dtype);
    if (floating && tolerance.scaled) {
      // As pteforge.Tolerance.scale: the largest magnitude, at least 1, and 1 when eager
      // gave a NaN or an infinity.
      double largest = 1;
      for (int64_t i = 0; i < w->numel(); ++i) {
        const double magnitude = std::fabs(w->Get(i));
        if (!std::isfinite(magnitude)) {
          largest = 1;
          break;
        }
        largest = std::max(largest, magnitude);
      }
      atol *= largest;
    }
    for (int64_t i = 0; i < w->numel(); ++i) {
      double x = w->Get(i), y = g->Get(i);
      if (floating) {
        if (std::isnan(x) || std::isnan(y)) {
          if (std::isnan(x) && std::isnan(y)) continue;
        } else {
          double error = std::fabs(x - y);
          if (std::isfinite(error) && error > *max_abs_error) *max_abs_error = error;
          if (error <= atol + rtol * std::fabs(x) || x == y) continue;
        }
      } else if (x == y) {
        continue;
      }
      return Failure(Error::InvalidArgument, "element %lld is %.9g, eager PyTorch gave %.9g (atol=%g, rtol=%g)",
                     static_cast<long long>(i), y, x, floating ? atol : 0.0, floating ? rtol : 0.0);
    }
    return Status();
  }
  // Scalars: the Session gives int64, double or bool, as eager did.
  auto number = [](const Value& v, double* x) {
    if (const auto* i = std::get_if<int64_t>(&v)) return *x = static_cast<double>(*i), true;
    if (const auto* d = std::get_if<double>(&v)) return *x = *d, true;
    if (const auto* b = std::get_if<bool>(&v)) return *x = *b ? 1.0 : 0.0, true;
    return false;
  };
  double x = 0, y = 0;
  if (!number(want, &x) || !number(got, &y)) {
    return Failure(Error::InvalidArgument, "expected %s, got %s", DescribeValue(want).c_str(),
                   DescribeValue(got).c_str());
  }
  if (tolerance.scaled && std::isfinite(x)) atol *= std::max(1.0, std::fabs(x));
  if (std::fabs(x - y) > atol + rtol * std::fabs(x)) {
    return Failure(Error::InvalidArgument, "got %.17g, eager PyTorch gave %.17g", y, x);
  }
  return Status();
}

namespace {

Status CheckState(Session& session, const std::vector<std::pair<std::string, Value>>& expected, const Replay& replay,
                  const std::string& when, ReplayResult* result) {
  for (const auto& [name, want] : expected) {
    auto got = session.ReadState(name);
    if (!got.ok()) return Failure(got.status().code(), "%s: %s", when.c_str(), got.status().message().c_str());
    Status same = CompareValue(want, Value(std::move(got.value())), replay.tolerance, &result->max_abs_error);
    ++result->values_compared;
    if (!same.ok()) {
      return Failure(Error::InvalidArgument, "%s: state '%s' differs from eager PyTorch: %s", when.c_str(),
                     name.c_str(), same.message().c_str());
    }
  }
  return Status();
}

}  // namespace

StatusOr<ReplayResult> RunReplay(Session& session, const Replay& replay, const ReplayObserver& observe) {
  ReplayResult result;
  PTEFORGE_RETURN_IF_ERROR(CheckState(session, replay.initial_state, replay, "after loading", &result));
  for (const ReplayCall& step : replay.calls) {
    ++result.calls;
    std::string label = "call " + std::to_string(result.calls) + " (" + step.call.method + ")";
    Call call = step.call;  // its inputs as the method leaves them
    auto outputs = session.ExecuteInPlace(call.method, &call.args);
    if (!outputs.ok()) {
      return Failure(outputs.status().code(), "%s: %s", label.c_str(), outputs.status().message().c_str());
    }
    if (observe) observe(result.calls, call, outputs.value());
    for (const auto& [index, want] : step.written) {
      if (index >= call.args.size()) {
        return Failure(Error::InvalidArgument, "%s: eager PyTorch wrote input %zu, the call has %zu inputs",
                       label.c_str(), index, call.args.size());
      }
      Status same = CompareValue(want, call.args[index], replay.tolerance, &result.max_abs_error);
      ++result.values_compared;
      if (!same.ok()) {
        return Failure(Error::InvalidArgument, "%s: input %zu as the method left it differs from eager PyTorch: %s",
                       label.c_str(), index, same.message().c_str());
      }
    }
    for (const auto& [index, want] : step.outputs) {
      if (index >= outputs->size()) {
        return Failure(Error::InvalidArgument, "%s: eager PyTorch returned output %zu, the program only %zu outputs",
                       label.c_str(), index, outputs->size());
      }
      Status same = CompareValue(want, outputs->at(index), replay.tolerance, &result.max_abs_error);
      ++result.values_compared;
      if (!same.ok()) {
        return Failure(Error::InvalidArgument, "%s: output %zu differs from eager PyTorch: %s", label.c_str(), index,
                       same.message().c_str());
      }
    }
    PTEFORGE_RETURN_IF_ERROR(CheckState(session, step.state_after, replay, "after " + label, &result));
  }
  // reset_state must bring back the initial values, whatever the calls did.
  Status reset = session.ResetState();
  if (!reset.ok()) return Failure(reset.code(), "reset_state: %s", reset.message().c_str());
  PTEFORGE_RETURN_IF_ERROR(CheckState(session, replay.initial_state, replay, "after reset_state", &result));
  return result;
}

Status ReplayAndPrint(Session& session, const std::string& text, bool print_outputs) {
  auto replay = ParseReplay(text);
  if (!replay.ok()) return replay.status();
  ReplayObserver print = [&session](size_t index, const Call& call, const std::vector<Value>& outputs) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::printf("[%zu] %s output %zu = %s\n", index, call.method.c_str(), i, ValueLiteral(outputs[i]).c_str());
    }
    auto signature = session.Signature(call.method);
    for (size_t input : signature.ok() ? signature->written_inputs : std::vector<size_t>()) {
      std::printf("[%zu] %s written input %zu = %s\n", index, call.method.c_str(), input,
                  ValueLiteral(call.args[input]).c_str());
    }
  };
  auto result = RunReplay(session, replay.value(), print_outputs ? print : ReplayObserver());
  if (!result.ok()) return result.status();
  std::printf("replayed %zu calls of '%s': %zu values match eager PyTorch (max abs error %.3g; atol=%g%s, rtol=%g), "
              "and reset_state restores the initial state\n",
              result->calls, replay->program.c_str(), result->values_compared, result->max_abs_error,
              replay->tolerance.atol, replay->tolerance.scaled ? " x scale" : "", replay->tolerance.rtol);
  return Status();
}

}  // namespace pteforge
