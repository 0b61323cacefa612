#include "cc/cli/flags.h"

#include <cstdlib>

namespace pteforge {

void Flags::Define(const std::string& name, const std::string& help, const std::string& default_value) {
  flags_[name] = Flag{Kind::kValue, help, default_value, {}, false};
}

void Flags::DefineSwitch(const std::string& name, const std::string& help) {
  flags_[name] = Flag{Kind::kSwitch, help, "", {}, false};
}

void Flags::DefineRepeated(const std::string& name, const std::string& help) {
  flags_[name] = Flag{Kind::kRepeated, help, "", {}, false};
}

Status Flags::Parse(int argc, char** argv) {
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_positional || arg.rfind("--", 0) != 0 || arg == "-") {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    size_t equals = arg.find('=');
    std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    auto it = flags_.find(name);
    if (it == flags_.end()) {
      return Failure(Error::InvalidArgument, "unknown flag --%s (see --help)", name.c_str());
    }
    Flag& flag = it->second;
    if (flag.kind == Kind::kSwitch) {
      if (equals != std::string::npos) {
        return Failure(Error::InvalidArgument, "--%s takes no value", name.c_str());
      }
      flag.set = true;
      continue;
    }
    std::string value;
    if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return Failure(Error::InvalidArgument, "--%s needs a value", name.c_str());
    }
    flag.set = true;
    if (flag.kind == Kind::kRepeated) {
      flag.values.push_back(value);
    } else {
      flag.value = value;
    }
  }
  return Status();
}

const std::string& Flags::Get(const std::string& name) const { return flags_.at(name).value; }

bool Flags::IsSet(const std::string& name) const { return flags_.at(name).set; }

const std::vector<std::string>& Flags::GetAll(const std::string& name) const { return flags_.at(name).values; }

StatusOr<int64_t> Flags::GetInt(const std::string& name, int64_t min, int64_t max) const {
  const std::string& text = Get(name);
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < min || value > max) {
    return Failure(Error::InvalidArgument, "--%s=%s: expected an integer from %lld to %lld", name.c_str(),
                   text.c_str(), static_cast<long long>(min), static_cast<long long>(max));
  }
  return static_cast<int64_t>(value);
}

StatusOr<double> Flags::GetDouble(const std::string& name, double min, double max) const {
  const std::string& text = Get(name);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= min && value <= max)) {
    return Failure(Error::InvalidArgument, "--%s=%s: expected a number from %g to %g", name.c_str(), text.c_str(), min,
                   max);
  }
  return value;
}

std::string Flags::Help() const {
  std::string text;
  for (const auto& [name, flag] : flags_) {
    std::string usage = "--" + name + (flag.kind == Kind::kSwitch ? "" : "=...");
    text += "  " + usage + std::string(usage.size() < 20 ? 20 - usage.size() : 1, ' ') + flag.help;
    if (flag.kind == Kind::kRepeated) text += " (repeatable)";
    // A help text that explains its default itself ("(default: the model's)") keeps
    // that explanation instead of also showing the internal value that stands for it.
    bool explained = flag.help.find("(default:") != std::string::npos;
    if (flag.kind == Kind::kValue && !flag.value.empty() && !explained) text += " (default: " + flag.value + ")";
    text += "\n";
  }
  return text;
}

}  // namespace pteforge
