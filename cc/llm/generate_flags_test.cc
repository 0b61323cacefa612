// The generate tool's sampling flags over a model's defaults: overrides, contradictions
// and bad values.
#include "cc/llm/generate_flags.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace pteforge {
namespace {

// The generate tool's flags over a model's defaults.
Status Apply(std::vector<std::string> args, GenerateOptions* options) {
  Flags flags;
  DefineGenerateFlags(&flags);
  args.insert(args.begin(), "generate");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  Status parsed = flags.Parse(static_cast<int>(argv.size()), argv.data());
  if (!parsed.ok()) return parsed;
  return ApplyGenerateFlags(flags, options);
}

TEST(GenerateFlagsTest, FlagsOverrideTheModelsDefaults) {
  GenerateOptions options;
  options.sampling.do_sample = true;
  options.sampling.top_k = 20;
  ASSERT_TRUE(Apply({"--temperature=0.5", "--top_p=0.9", "--seed=3", "--max_new_tokens=7"}, &options).ok());
  EXPECT_TRUE(options.sampling.do_sample);
  EXPECT_EQ(options.sampling.temperature, 0.5);
  EXPECT_EQ(options.sampling.top_p, 0.9);
  EXPECT_EQ(options.sampling.top_k, 20);
  EXPECT_EQ(options.seed, 3u);
  EXPECT_EQ(options.max_new_tokens, 7);

  ASSERT_TRUE(Apply({"--temperature=0"}, &options).ok());
  EXPECT_FALSE(options.sampling.do_sample);
}

TEST(GenerateFlagsTest, ContradictionsAndBadValuesAreErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--greedy", "--sample"}, "--greedy or --sample, not both"},
      {{"--top_k=5"}, "apply to sampling: add --sample"},
      {{"--sample", "--top_p=1.5"}, "top_p 1.5: must be in (0, 1]"},
      {{"--sample", "--temperature=warm"}, "--temperature=warm is not a number"},
      {{"--max_new_tokens=-3"}, "--max_new_tokens=-3: expected an integer"},
      {{"--max_new_tokens=0"}, "--max_new_tokens=0: expected an integer from 1"},
      {{"--sample", "--temperature=0"}, "--temperature=0 is greedy"},
  };
  for (const auto& [args, message] : cases) {
    GenerateOptions greedy;
    Status status = Apply(args, &greedy);
    EXPECT_FALSE(status.ok()) << args[0];
    EXPECT_NE(status.message().find(message), std::string::npos) << status.message();
  }
}

}  // namespace
}  // namespace pteforge
