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
#include "cc/cli/format.h"
#include "cc/cli/profile.h"
#include "cc/cli/runtime_tool.h"
#include "cc/runtime/metadata.h"
#include "cc/runtime/session.h"

namespace pteforge {
namespace {

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
  RuntimeTool tool("pte_run", "--model=x.pte [--list] [--call=...] [--calls=file]");
  Flags& flags = tool.flags();
  flags.Define("model", "the .pte to open");
  flags.DefineSwitch("list", "print methods, constants, state and planned memory");
  flags.DefineRepeated("call", "a call to run, e.g. 'get_cache(zeros[4,8])' (cc/cli/calls.h)");
  flags.Define("calls", "a file of calls, one per line ('#' comments)");
  flags.Define("etdump", "write an ExecuTorch profile (ETDump) of the calls to this file");
  flags.Define("max_print", "print at most this many elements per tensor", "64");
  if (auto exit_status = tool.StartWithFlagsOnly(argc, argv)) return *exit_status;
  if (!flags.IsSet("model")) return tool.Fail("--model is required (see --help)", kUsageError);
  auto max_print = flags.GetInt("max_print", 0, int64_t{1} << 40);
  if (!max_print.ok()) return tool.Fail(max_print.status(), kUsageError);
  auto calls = CollectCalls(flags);
  if (!calls.ok()) return tool.Fail(calls.status(), kUsageError);
  if (!flags.IsSet("list") && calls->empty()) {
    return tool.Fail("nothing to do: give --list, --call or --calls", kUsageError);
  }

  Status profiling = flags.IsSet("etdump") ? Profile::CheckAvailable() : Status();
  if (!profiling.ok()) return tool.Fail(profiling, kUsageError);
  Profile profile;
  SessionOptions options;
  if (flags.IsSet("etdump")) options.event_tracer = profile.tracer();
  auto session = Session::Open(flags.Get("model"), options);
  if (!session.ok()) return tool.Fail(session.status());

  if (flags.IsSet("list")) std::printf("%s", DescribeSession(*session.value()).c_str());
  const Metadata metadata = ReadMetadata(*session.value());
  int index = 0;
  for (const Call& call : calls.value()) {
    ++index;
    std::vector<Value> args = call.args;  // the method may write some of them (printed below)
    auto outputs = session.value()->ExecuteInPlace(call.method, &args);
    if (!outputs.ok()) {
      return tool.Fail("call " + std::to_string(index) + ", " + call.text + ": " + outputs.status().message());
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
    if (!written.ok()) return tool.Fail(written);
    std::printf("wrote the profile to %s\n", flags.Get("etdump").c_str());
  }
  return 0;
}

}  // namespace
}  // namespace pteforge

int main(int argc, char** argv) { return pteforge::Main(argc, argv); }
