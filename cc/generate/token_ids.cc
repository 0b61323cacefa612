#include "cc/generate/token_ids.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace pteforge {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

StatusOr<std::vector<int64_t>> ParseTokenIds(std::string_view text) {
  std::vector<int64_t> ids;
  size_t i = 0;
  while (i < text.size()) {
    if (IsSpace(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    const std::string word(text.substr(i, end - i));
    char* stop = nullptr;
    errno = 0;
    const long long id = std::strtoll(word.c_str(), &stop, 10);
    if (*stop != '\0' || errno != 0 || id < 0) {
      return Failure(Error::InvalidArgument, "'%s' is not a token id (expected numbers separated by spaces)",
                     word.c_str());
    }
    ids.push_back(id);
    i = end;
  }
  return ids;
}

std::string FormatTokenIds(const std::vector<int64_t>& ids) {
  std::string text;
  for (int64_t id : ids) text += (text.empty() ? "" : " ") + std::to_string(id);
  return text;
}

StatusOr<std::vector<std::vector<int64_t>>> ReadTokenIdLines(const char* path) {
  FILE* file = std::fopen(path, "r");
  if (file == nullptr) return Failure(Error::AccessFailed, "cannot open %s", path);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text.push_back(static_cast<char>(c));
  std::fclose(file);
  std::vector<std::vector<int64_t>> lines;
  size_t start = 0, number = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    auto ids = ParseTokenIds(std::string_view(text).substr(start, end - start));
    if (!ids.ok()) return Failure(Error::InvalidArgument, "%s line %zu: %s", path, number, ids.status().message().c_str());
    if (!ids->empty()) lines.push_back(std::move(ids.value()));
    start = end + 1;
  }
  return lines;
}

}  // namespace pteforge
