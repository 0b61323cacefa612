#include "cc/text/bpe.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>

#include "cc/text/utf8.h"

namespace pteforge {
namespace {

const char kWhere[] = "tokenizer.json: model BPE";

// The two tokens of merge number `rank`: "a b" or ["a", "b"].
Status MergePair(const Json& merge, size_t rank, std::string* left, std::string* right) {
  if (merge.is_string()) {
    const std::string& text = merge.get_ref<const std::string&>();
    const size_t space = text.find(' ');
    if (space != std::string::npos && text.find(' ', space + 1) == std::string::npos) {
      *left = text.substr(0, space);
      *right = text.substr(space + 1);
      return Status();
    }
  } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
    *left = merge[0].get_ref<const std::string&>();
    *right = merge[1].get_ref<const std::string&>();
    return Status();
  }
  return Failure(Error::InvalidArgument, "%s: merge %zu is neither \"a b\" nor [\"a\", \"b\"]", kWhere, rank);
}

}  // namespace

StatusOr<BpeModel> BpeModel::FromJson(const Json& model) {
  BpeModel bpe;
  const std::string where = kWhere;
  auto vocab = RequiredMember(model, "vocab", where, Json::value_t::object);
  if (!vocab.ok()) return vocab.status();
  bpe.vocab_.reserve((*vocab)->size());
  bpe.tokens_.reserve((*vocab)->size());
  for (const auto& entry : (*vocab)->items()) {
    const std::string& token = entry.key();
    const Json& id = entry.value();
    if (!IsInt64(id) || AsInt64(id) < 0 || AsInt64(id) > std::numeric_limits<int32_t>::max()) {
      return Failure(Error::InvalidArgument, "%s: the id of '%s' is not a non-negative integer", kWhere,
                     token.c_str());
    }
    const auto value = static_cast<int32_t>(AsInt64(id));
    bpe.vocab_[token] = value;
    bpe.tokens_[value] = token;
  }

  double dropout = 0;
  if (const Json* d = FindMember(model, "dropout"); d != nullptr && d->is_number()) dropout = d->get<double>();
  if (dropout > 0) {
    return Failure(Error::NotSupported, "%s: dropout %g is not supported (it makes encoding random); "
                   "set it to null", kWhere, dropout);
  }
  std::string unk_token;
  PTEFORGE_RETURN_IF_ERROR(OptionalString(model, "unk_token", where, "", &unk_token));
  if (!unk_token.empty()) {
    auto it = bpe.vocab_.find(unk_token);
    if (it == bpe.vocab_.end()) {
      return Failure(Error::InvalidArgument, "%s: unk_token '%s' is not in the vocabulary", kWhere,
                     unk_token.c_str());
    }
    bpe.unk_id_ = it->second;
  }
  PTEFORGE_RETURN_IF_ERROR(OptionalBool(model, "fuse_unk", where, false, &bpe.fuse_unk_));
  PTEFORGE_RETURN_IF_ERROR(OptionalBool(model, "byte_fallback", where, false, &bpe.byte_fallback_));
  PTEFORGE_RETURN_IF_ERROR(OptionalBool(model, "ignore_merges", where, false, &bpe.ignore_merges_));
  PTEFORGE_RETURN_IF_ERROR(
      OptionalString(model, "continuing_subword_prefix", where, "", &bpe.continuing_subword_prefix_));
  PTEFORGE_RETURN_IF_ERROR(OptionalString(model, "end_of_word_suffix", where, "", &bpe.end_of_word_suffix_));
  for (int byte = 0; byte < 256; ++byte) {
    char name[8];
    std::snprintf(name, sizeof(name), "<0x%02X>", byte);
    auto it = bpe.vocab_.find(name);
    bpe.byte_ids_[byte] = it == bpe.vocab_.end() ? -1 : it->second;
  }

  auto merges = RequiredMember(model, "merges", where, Json::value_t::array);
  if (!merges.ok()) return merges.status();
  bpe.merges_.reserve((*merges)->size());
  const size_t prefix_length = bpe.continuing_subword_prefix_.size();
  std::string left, right;
  for (size_t rank = 0; rank < (*merges)->size(); ++rank) {
    PTEFORGE_RETURN_IF_ERROR(MergePair((**merges)[rank], rank, &left, &right));
    auto left_id = bpe.vocab_.find(left);
    auto right_id = bpe.vocab_.find(right);
    // The merged token drops the right part's continuing-subword prefix.
    const std::string merged =
        left + (right.compare(0, prefix_length, bpe.continuing_subword_prefix_) == 0 ? right.substr(prefix_length)
                                                                                      : right);
    auto merged_id = bpe.vocab_.find(merged);
    const std::pair<decltype(merged_id), const std::string*> parts[] = {
        {left_id, &left}, {right_id, &right}, {merged_id, &merged}};
    for (const auto& [found, token] : parts) {
      if (found == bpe.vocab_.end()) {
        return Failure(Error::InvalidArgument, "%s: merge %zu ('%s' + '%s'): '%s' is not in the vocabulary",
                       kWhere, rank, left.c_str(), right.c_str(), token->c_str());
      }
    }
    // A pair listed twice keeps its last rank, as tokenizers' hash map does.
    bpe.merges_[PairKey(left_id->second, right_id->second)] = {static_cast<int32_t>(rank), merged_id->second};
  }
  return bpe;
}

std::optional<int64_t> BpeModel::TokenToId(std::string_view token) const {
  auto it = vocab_.find(std::string(token));
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* BpeModel::IdToToken(int64_t id) const {
  if (id < 0 || id > std::numeric_limits<int32_t>::max()) return nullptr;
  auto it = tokens_.find(static_cast<int32_t>(id));
  return it == tokens_.end() ? nullptr : &it->second;
}

void BpeModel::Tokenize(std::string_view word, std::vector<int64_t>* ids) const {
  if (ignore_merges_) {
    auto it = vocab_.find(std::string(word));
    if (it != vocab_.end()) {
      ids->push_back(it->second);
      return;
    }
  }
  std::vector<int32_t> symbols;
  symbols.reserve(word.size());
  // An unknown run waiting to be added (tokenizers adds it before the next known
  // character; byte-fallback tokens do not flush it).
  bool pending_unk = false;
  std::string piece;
  size_t offset = 0;
  while (offset < word.size()) {
    const size_t length = std::max<size_t>(1, utf8::SequenceLength(word, offset));
    piece.clear();
    if (offset > 0) piece += continuing_subword_prefix_;
    piece.append(word.substr(offset, length));
    offset += length;
    if (offset == word.size()) piece += end_of_word_suffix_;

    if (auto it = vocab_.find(piece); it != vocab_.end()) {
      if (pending_unk) symbols.push_back(*unk_id_);
      pending_unk = false;
      symbols.push_back(it->second);
      continue;
    }
    if (byte_fallback_) {
      bool all_bytes = true;
      for (char byte : piece) all_bytes = all_bytes && byte_ids_[static_cast<unsigned char>(byte)] >= 0;
      if (all_bytes) {
        for (char byte : piece) symbols.push_back(byte_ids_[static_cast<unsigned char>(byte)]);
        continue;
      }
    }
    if (unk_id_.has_value()) {
      if (pending_unk && !fuse_unk_) symbols.push_back(*unk_id_);
      pending_unk = true;
    }
    // Without unk_token the character is dropped, as tokenizers does.
  }
  if (pending_unk) symbols.push_back(*unk_id_);
  MergeSymbols(&symbols);
  ids->insert(ids->end(), symbols.begin(), symbols.end());
}

void BpeModel::MergeSymbols(std::vector<int32_t>* symbols) const {
  if (symbols->size() < 2) return;
  const int count = static_cast<int>(symbols->size());
  // A doubly linked list over the symbols; a merged-away symbol is marked dead.
  std::vector<int> prev(count), next(count);
  std::vector<bool> alive(count, true);
  for (int i = 0; i < count; ++i) {
    prev[i] = i - 1;
    next[i] = i + 1 < count ? i + 1 : -1;
  }
  struct Candidate {
    int32_t rank;
    int position;
    int32_t new_id;
    bool operator>(const Candidate& other) const {
      return rank != other.rank ? rank > other.rank : position > other.position;
    }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  auto push_pair = [&](int position) {
    if (position < 0 || next[position] < 0) return;
    auto it = merges_.find(PairKey((*symbols)[position], (*symbols)[next[position]]));
    if (it != merges_.end()) queue.push({it->second.rank, position, it->second.new_id});
  };
  for (int i = 0; i + 1 < count; ++i) push_pair(i);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    if (!alive[top.position] || next[top.position] < 0) continue;
    const int right = next[top.position];
    // A stale entry: the pair at this position changed since it was queued.
    auto it = merges_.find(PairKey((*symbols)[top.position], (*symbols)[right]));
    if (it == merges_.end() || it->second.new_id != top.new_id) continue;
    (*symbols)[top.position] = top.new_id;
    alive[right] = false;
    next[top.position] = next[right];
    if (next[right] >= 0) prev[next[right]] = top.position;
    push_pair(prev[top.position]);
    push_pair(top.position);
  }
  size_t kept = 0;
  for (int i = 0; i < count; ++i) {
    if (alive[i]) (*symbols)[kept++] = (*symbols)[i];
  }
  symbols->resize(kept);
}

}  // namespace pteforge
