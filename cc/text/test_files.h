// For the tokenizer tests: the files of //cc/text/testdata, read from the test's runfiles.
#ifndef PTEFORGE_CC_TEXT_TEST_FILES_H_
#define PTEFORGE_CC_TEXT_TEST_FILES_H_

#include <fstream>
#include <sstream>
#include <string>

namespace pteforge {

// The contents of cc/text/testdata/`name` ("gpt2.tokenizer.json"), or "" if unreadable.
inline std::string ReadTestFile(const std::string& name) {
  std::ifstream file("cc/text/testdata/" + name, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

}  // namespace pteforge

#endif  // PTEFORGE_CC_TEXT_TEST_FILES_H_
