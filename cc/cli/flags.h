// A minimal --name=value command-line parser for pteforge's tools (host and device;
// no dependency beyond the standard library).
//
//   Flags flags;
//   flags.Define("model", "path of the .pte");           // a value flag
//   flags.DefineSwitch("list", "list methods and exit");  // --list
//   flags.DefineRepeated("call", "a call; repeatable");
//   Status status = flags.Parse(argc, argv);              // positional args kept
#ifndef PTEFORGE_CC_CLI_FLAGS_H_
#define PTEFORGE_CC_CLI_FLAGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cc/runtime/status.h"

namespace pteforge {

class Flags {
 public:
  void Define(const std::string& name, const std::string& help, const std::string& default_value = "");
  void DefineSwitch(const std::string& name, const std::string& help);
  void DefineRepeated(const std::string& name, const std::string& help);

  // Parses argv; unknown flags, missing values and switches given values are errors.
  // Arguments not starting with "--" (and everything after "--") are positional.
  Status Parse(int argc, char** argv);

  const std::string& Get(const std::string& name) const;
  bool IsSet(const std::string& name) const;
  const std::vector<std::string>& GetAll(const std::string& name) const;
  // The flag as a positive integer within [min, max].
  StatusOr<int64_t> GetInt(const std::string& name, int64_t min, int64_t max) const;
  StatusOr<double> GetDouble(const std::string& name, double min, double max) const;
  const std::vector<std::string>& positional() const { return positional_; }
  // One line per flag with its help text.
  std::string Help() const;

 private:
  enum class Kind { kValue, kSwitch, kRepeated };
  struct Flag {
    Kind kind;
    std::string help;
    std::string value;
    std::vector<std::string> values;
    bool set = false;
  };
  std::map<std::string, Flag> flags_;
  std::vector<std::string> positional_;
};

}  // namespace pteforge

#endif  // PTEFORGE_CC_CLI_FLAGS_H_
