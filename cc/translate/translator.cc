#include "cc/translate/translator.h"

#include <algorithm>

namespace pteforge {

StatusOr<std::unique_ptr<Translator>> Translator::Open(const std::string& path, SessionOptions options) {
  auto session = Session::Open(path, options);
  if (!session.ok()) return session.status();
  auto model = TranslationModel::Create(std::move(session.value()), "'" + path + "'");
  if (!model.ok()) return model.status();
  std::unique_ptr<Translator> translator(new Translator());
  translator->model_ = std::move(model.value());
  TranslationModel& m = *translator->model_;
  auto source_spm = m.ReadText("source_spm");
  if (!source_spm.ok()) return source_spm.status();
  auto target_spm = m.ReadText("target_spm");
  if (!target_spm.ok()) return target_spm.status();
  auto vocab = m.ReadText("vocab");
  if (!vocab.ok()) return vocab.status();
  SpecialTokens special;
  special.eos = m.info().defaults.eos_token;
  special.pad = m.info().defaults.pad_token;
  special.unk = m.info().unk_token;
  auto tokenizer = MarianTokenizer::Create(source_spm.value(), target_spm.value(), vocab.value(), special);
  if (!tokenizer.ok()) return tokenizer.status();
  translator->tokenizer_ = std::move(tokenizer.value());
  return translator;
}

StatusOr<std::vector<StatusOr<Translation>>> Translator::Translate(const std::vector<std::string>& texts,
                                                                   const TranslateOptions& options) {
  auto search = model_->Resolve(options);
  if (!search.ok()) return search.status();
  int64_t per_batch = info().max_rows / search->beams;
  if (options.batch_size > 0) per_batch = std::min<int64_t>(per_batch, options.batch_size);
  std::vector<StatusOr<Translation>> results;
  std::vector<size_t> valid;  // indices of the texts to translate
  for (size_t i = 0; i < texts.size(); ++i) {
    auto ids = tokenizer_->Encode(texts[i]);
    if (ids.ok() && static_cast<int64_t>(ids->size()) > info().max_source_length) {
      ids = Failure(Error::InvalidArgument,
                    "%zu tokens (</s> included) is more than this model's max_source_length of %lld: split "
                    "the sentence",
                    ids->size(), static_cast<long long>(info().max_source_length));
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
