#include "cc/translate/translator.h"

#include <algorithm>
#include <cmath>

#include "cc/translate/bergamot_model.h"
#include "cc/translate/marian_model.h"

namespace pteforge {
namespace {

StatusOr<Value> Constant(Session& session, const char* name) {
  auto values = session.Execute(name, {});
  if (!values.ok()) {
    return Failure(Error::InvalidProgram, "the program is not a translation model: constant '%s': %s", name,
                   values.status().message().c_str());
  }
  if (values->size() != 1) return Failure(Error::InvalidProgram, "constant '%s' is not one value", name);
  return values->at(0);
}

template <typename T>
Status Read(Session& session, const char* name, T* out) {
  auto value = Constant(session, name);
  if (!value.ok()) return value.status();
  if constexpr (std::is_same_v<T, std::string>) {
    if (const auto* text = std::get_if<std::string>(&value.value())) {
      *out = *text;
      return Status();
    }
    if (const auto* bytes = std::get_if<HostTensor>(&value.value())) {  // binary data: a uint8 tensor
      out->assign(bytes->bytes.begin(), bytes->bytes.end());
      return Status();
    }
  } else if constexpr (std::is_same_v<T, double>) {
    if (const auto* real = std::get_if<double>(&value.value())) {
      *out = *real;
      return Status();
    }
  } else if constexpr (std::is_same_v<T, bool>) {
    if (const auto* flag = std::get_if<bool>(&value.value())) {
      *out = *flag;
      return Status();
    }
  } else {
    if (const auto* integer = std::get_if<int64_t>(&value.value())) {
      *out = static_cast<T>(*integer);
      return Status();
    }
  }
  return Failure(Error::InvalidProgram, "constant '%s' has an unexpected type (%s)", name,
                 DescribeValue(value.value()).c_str());
}

}  // namespace

StatusOr<std::unique_ptr<Translator>> Translator::Open(const std::string& path, SessionOptions options) {
  auto session = Session::Open(path, options);
  if (!session.ok()) return session.status();
  std::unique_ptr<Translator> translator(new Translator());
  translator->session_ = std::move(session.value());
  Session& s = *translator->session_;
  TranslatorInfo& info = translator->info_;
  PTEFORGE_RETURN_IF_ERROR(Read(s, "family", &info.family));
  if (info.family != "marian" && info.family != "bergamot") {
    return Failure(Error::NotSupported, "'%s' is a '%s' model; this translator handles: marian, bergamot",
                   path.c_str(), info.family.c_str());
  }
  std::string source_spm, target_spm, vocab;
  SpecialTokens special;
  SearchOptions& d = info.defaults;
  int64_t beams = 1;
  for (Status status : {
           Read(s, "model_name", &info.model_name), Read(s, "weights_are_random", &info.weights_are_random),
           Read(s, "source_spm", &source_spm), Read(s, "target_spm", &target_spm), Read(s, "vocab", &vocab),
           Read(s, "decoder_start_token_id", &d.start_token), Read(s, "eos_token_id", &d.eos_token),
           Read(s, "pad_token_id", &d.pad_token), Read(s, "unk_token_id", &special.unk),
           Read(s, "num_beams", &beams), Read(s, "max_length", &d.max_length),
           Read(s, "length_penalty", &d.length_penalty), Read(s, "early_stopping", &d.early_stopping),
           Read(s, "forced_eos", &d.forced_eos), Read(s, "max_rows", &info.max_rows),
           Read(s, "max_source_length", &info.max_source_length),
           Read(s, "max_target_length", &info.max_target_length)}) {
    PTEFORGE_RETURN_IF_ERROR(status);
  }
  d.beams = static_cast<int>(beams);
  special.eos = d.eos_token;
  special.pad = d.pad_token;
  info.vocab_size = static_cast<int64_t>(std::count(vocab.begin(), vocab.end(), '\n')) + 1;
  auto tokenizer = MarianTokenizer::Create(source_spm, target_spm, vocab, special);
  if (!tokenizer.ok()) return tokenizer.status();
  translator->tokenizer_ = std::move(tokenizer.value());
  if (info.family == "bergamot") {
    std::string shortlist_bytes;
    int64_t multiple = 0;
    for (Status status : {Read(s, "shortlist", &shortlist_bytes), Read(s, "shortlist_multiple", &multiple),
                          Read(s, "max_length_factor", &info.max_length_factor)}) {
      PTEFORGE_RETURN_IF_ERROR(status);
    }
    auto shortlist = Shortlist::Parse(shortlist_bytes, info.vocab_size);
    if (!shortlist.ok()) return shortlist.status();
    translator->marian_ =
        new BergamotModel(&s, info.vocab_size, d.pad_token, std::move(shortlist.value()), multiple);
  } else {
    translator->marian_ = new MarianModel(&s, info.vocab_size, d.pad_token);
  }
  translator->model_.reset(translator->marian_);
  return translator;
}

TranslateStats Translator::stats() const { return marian_->stats(); }

void Translator::ResetStats() { marian_->ResetStats(); }

StatusOr<SearchOptions> Translator::Resolve(const TranslateOptions& options) const {
  SearchOptions search = info_.defaults;
  if (options.beams > 0) search.beams = options.beams;
  if (options.max_length > 0) search.max_length = options.max_length;
  search.min_length = options.min_length;
  if (search.beams > info_.max_rows) {
    return Failure(Error::InvalidArgument, "%d beams do not fit: the model decodes at most %lld rows at once",
                   search.beams, static_cast<long long>(info_.max_rows));
  }
  if (search.max_length > info_.max_target_length) {
    return Failure(Error::InvalidArgument, "max_length %lld exceeds the model's limit of %lld tokens",
                   static_cast<long long>(search.max_length), static_cast<long long>(info_.max_target_length));
  }
  return search;
}

StatusOr<std::vector<std::vector<int64_t>>> Translator::Generate(const std::vector<std::vector<int64_t>>& sources,
                                                                 const TranslateOptions& options) {
  auto search = Resolve(options);
  if (!search.ok()) return search.status();
  if (info_.max_length_factor > 0 && options.max_length == 0) {
    search->max_length = 0;
    for (const auto& ids : sources) {
      // The start token is part of max_length.
      int64_t limit = std::min<int64_t>(info_.max_target_length,
                                        static_cast<int64_t>(std::ceil(info_.max_length_factor * ids.size())) + 1);
      search->max_length = std::max(search->max_length, limit);
      if (search->beams == 1) search->sentence_max_lengths.push_back(limit);
    }
  }
  if (static_cast<int64_t>(sources.size()) * search->beams > info_.max_rows) {
    return Failure(Error::InvalidArgument, "%zu sentences x %d beams exceed the model's %lld rows", sources.size(),
                   search->beams, static_cast<long long>(info_.max_rows));
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].empty() || static_cast<int64_t>(sources[i].size()) > info_.max_source_length) {
      return Failure(Error::InvalidArgument,
                     "sentence %zu has %zu tokens; this model takes 1 to %lld (max_source_length): split it", i + 1,
                     sources[i].size(), static_cast<long long>(info_.max_source_length));
    }
  }
  return Search(*model_, sources, search.value());
}

StatusOr<std::vector<StatusOr<Translation>>> Translator::Translate(const std::vector<std::string>& texts,
                                                                   const TranslateOptions& options) {
  auto search = Resolve(options);
  if (!search.ok()) return search.status();
  int64_t per_batch = info_.max_rows / search->beams;
  if (options.batch_size > 0) per_batch = std::min<int64_t>(per_batch, options.batch_size);
  std::vector<StatusOr<Translation>> results;
  std::vector<size_t> valid;  // indices of the texts to translate
  for (size_t i = 0; i < texts.size(); ++i) {
    auto ids = tokenizer_->Encode(texts[i]);
    if (ids.ok() && static_cast<int64_t>(ids->size()) > info_.max_source_length) {
      ids = Failure(Error::InvalidArgument,
                    "%zu tokens (</s> included) is more than this model's max_source_length of %lld: split "
                    "the sentence",
                    ids->size(), static_cast<long long>(info_.max_source_length));
    }
    if (!ids.ok()) {
      results.emplace_back(ids.status());
      continue;
    }
    Translation translation;
    translation.source_ids = std::move(ids.value());
    results.emplace_back(std::move(translation));
    valid.push_back(i);
  }
  // Batches of similar lengths waste less on padding; results keep the input order.
  std::stable_sort(valid.begin(), valid.end(), [&](size_t a, size_t b) {
    return results[a]->source_ids.size() < results[b]->source_ids.size();
  });
  for (size_t start = 0; start < valid.size(); start += per_batch) {
    size_t end = std::min(valid.size(), start + static_cast<size_t>(per_batch));
    std::vector<std::vector<int64_t>> sources;
    for (size_t v = start; v < end; ++v) sources.push_back(results[valid[v]]->source_ids);
    auto generated = Generate(sources, options);
    if (!generated.ok()) return generated.status();
    for (size_t v = start; v < end; ++v) {
      Translation& translation = results[valid[v]].value();
      translation.ids = std::move(generated->at(v - start));
      auto text = tokenizer_->Decode(translation.ids);
      if (!text.ok()) return text.status();
      translation.text = std::move(text.value());
    }
  }
  return results;
}

}  // namespace pteforge
