// pte_run: open a .pte in a Session, list what it offers, or run calls in order.
//
//   pte_run --model=stateful.pte --list
//   pte_run --model=stateful.pte --call='set_cache(full(2)[3,8])' --call='get_cache(zeros[4,8])'
//   pte_run --model=stateful.pte --calls=session.txt --etdump=profile.etdp --threads=2
//
// The call language is described in cc/cli/calls.h: a call gives the method's flat
// inputs (the leaves of tuple, list and dict arguments, in the order --list shows).
// Each output and written input is printed with its name when the program's metadata
// gives one: its path in the method's arguments or result (`input 1 pair[1] (written)`,
// `output 0 ['h']`). Exit status: 0 on success, 1 when the model or a call fails, 2 for
// bad flags.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>

#include "cc/cli/calls.h"
#include "cc/cli/describe.h"
#include "cc/cli/executorch_log.h"
#include "cc/cli/flags.h"
#include "cc/cli/profile.h"
#include "cc/cli/format.h"
#include "cc/runtime/metadata.h"
#include "cc/runtime/session.h"
#include "cc/runtime/threads.h"

namespace pteforge {
namespace {

int Fail(const Status& status, int exit_code) {
  std::fprintf(stderr, "pte_run: error: %s\n", status.message().c_str());
  return exit_code;
}

StatusOr<std::vector<Call>> CollectCalls(const Flags& flags) {
  std::vector<Call> calls;
  if (flags.IsSet("calls")) {
    std::ifstream in(flags.Get("calls"));
    if (!in) return Failure(Error::AccessFailed, "cannot read --calls=%s", flags.Get("calls").c_str());
    auto from_file = ParseCallsFile(std::string(std::istreambuf_iterator<char>(in), {}));
    if (!from_file.ok()) {
      return Failure(Error::InvalidArgument, "%s: %s", flags.Get("calls").c_str(), from_file.status().message().c_str());
    }
    calls = std::move(from_file.value());
  }
  for (const auto& text : flags.GetAll("call")) {
    auto call = ParseCall(text);
    if (!call.ok()) return call.status();
    calls.push_back(std::move(call.value()));
  }
  return calls;
}

// The program's pteforge metadata, for the names of flat inputs and outputs; empty for a
// program without it (the Session has already refused malformed metadata).
Metadata ReadMetadata(Session& session) {
  auto outputs = session.Execute(kMetadataMethod, {});
  const std::string* text =
      outputs.ok() && outputs->size() == 1 ? std::get_if<std::string>(&outputs->at(0)) : nullptr;
  auto metadata = text != nullptr ? ParseMetadata(*text) : StatusOr<Metadata>(Metadata());
  return metadata.ok() ? std::move(metadata.value()) : Metadata();
}

// " xs[1]" for a named value, "" otherwise.
std::string NameSuffix(const Metadata& metadata, const std::string& method, bool output, size_t index) {
  std::string name = metadata.Name(method, output, index);
  return name.empty() ? name : " " + name;
}

int Main(int argc, char** argv) {
  Flags flags;
  flags.Define("model", "the .pte to open");
  flags.DefineSwitch("list", "print methods, constants, state and planned memory");
  flags.DefineRepeated("call", "a call to run, e.g. 'get_cache(zeros[4,8])' (cc/cli/calls.h)");
  flags.Define("calls", "a file of calls, one per line ('#' comments)");
  flags.Define("etdump", "write an ExecuTorch profile (ETDump) of the calls to this file");
  flags.Define("threads", "threads for the kernels and XNNPACK (default: ExecuTorch's choice)", "1");
  flags.Define("max_print", "print at most this many elements per tensor", "64");
  flags.DefineSwitch("verbose", "show ExecuTorch's own log lines (default: its errors only)");
  flags.DefineSwitch("help", "show this help");
  std::string usage = std::string("usage: ") + argv[0] + " --model=x.pte [--list] [--call=...] [--calls=file]\n" +
                      flags.Help();
  Status parsed = flags.Parse(argc, argv);
  if (!parsed.ok()) return Fail(parsed, 2);
  RouteExecutorchLog(flags.IsSet("verbose"));
  if (flags.IsSet("help")) {
    std::printf("%s", usage.c_str());
    return 0;
  }
  if (!flags.positional().empty()) {
    return Fail(Failure(Error::InvalidArgument, "unexpected argument '%s'", flags.positional()[0].c_str()), 2);
  }
  if (!flags.IsSet("model")) return Fail(Failure(Error::InvalidArgument, "--model is required\n%s", usage.c_str()), 2);
  auto threads = flags.GetInt("threads", 1, 256);
  if (!threads.ok()) return Fail(threads.status(), 2);
  auto max_print = flags.GetInt("max_print", 0, int64_t{1} << 40);
  if (!max_print.ok()) return Fail(max_print.status(), 2);
  auto calls = CollectCalls(flags);
  if (!calls.ok()) return Fail(calls.status(), 2);
  if (!flags.IsSet("list") && calls->empty()) {
    return Fail(Failure(Error::InvalidArgument, "nothing to do: give --list, --call or --calls"), 2);
  }

  if (flags.IsSet("threads")) {
    Status threads_set = SetThreadCount(static_cast<uint32_t>(threads.value()));
    if (!threads_set.ok()) return Fail(threads_set, 1);
  }
  Status profiling = flags.IsSet("etdump") ? Profile::CheckAvailable() : Status();
  if (!profiling.ok()) return Fail(profiling, 2);
  Profile profile;
  SessionOptions options;
  if (flags.IsSet("etdump")) options.event_tracer = profile.tracer();
  auto session = Session::Open(flags.Get("model"), options);
  if (!session.ok()) return Fail(session.status(), 1);

  if (flags.IsSet("list")) std::printf("%s", DescribeSession(*session.value()).c_str());
  const Metadata metadata = ReadMetadata(*session.value());
  int index = 0;
  for (const Call& call : calls.value()) {
    ++index;
    std::vector<Value> args = call.args;  // the method may write some of them (printed below)
    auto outputs = session.value()->ExecuteInPlace(call.method, &args);
    if (!outputs.ok()) {
      return Fail(Failure(outputs.status().code(), "call %d, %s: %s", index, call.text.c_str(),
                          outputs.status().message().c_str()),
                  1);
    }
    std::printf("[%d] %s\n", index, call.text.c_str());
    for (size_t i = 0; i < outputs->size(); ++i) {
      std::printf("    output %zu%s: %s\n", i, NameSuffix(metadata, call.method, true, i).c_str(),
                  FormatValue(outputs->at(i), max_print.value()).c_str());
    }
    auto signature = session.value()->Signature(call.method);
    for (size_t input : signature.ok() ? signature->written_inputs : std::vector<size_t>()) {
      std::printf("    input %zu%s (written): %s\n", input, NameSuffix(metadata, call.method, false, input).c_str(),
                  FormatValue(args[input], max_print.value()).c_str());
    }
  }
  if (flags.IsSet("etdump")) {
    Status written = profile.Write(flags.Get("etdump"));
    if (!written.ok()) return Fail(written, 1);
    std::printf("wrote the profile to %s\n", flags.Get("etdump").c_str());
  }
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
