#include "cc/seq2seq/translator.h"

#include <algorithm>

#include "cc/text/hf_text_tokenizer.h"
#include "cc/text/marian_tokenizer.h"

namespace pteforge {

StatusOr<std::unique_ptr<Translator>> Translator::Open(const std::string& path, SessionOptions options) {
  auto session = Session::Open(path, options);
  if (!session.ok()) return session.status();
  auto model = TranslationModel::Create(std::move(session.value()), "'" + path + "'");
  if (!model.ok()) return model.status();
  std::unique_ptr<Translator> translator(new Translator());
  translator->model_ = std::move(model.value());
  TranslationModel& m = *translator->model_;
  if (m.info().family == "seq2seq" && !m.HasConstant("source_spm")) {
    auto tokenizer = HfTextTokenizer::FromProgram(m.session(), "'" + path + "'");
    if (!tokenizer.ok()) return tokenizer.status();
    translator->tokenizer_ = std::move(tokenizer.value());
    return translator;
  }
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
  translator->cuts_long_sources_ = true;
  return translator;
}

StatusOr<std::vector<StatusOr<Translation>>> Translator::Translate(const std::vector<std::string>& texts,
                                                                   const TranslateOptions& options) {
  auto search = model_->Resolve(options);
  if (!search.ok()) return search.status();
  int64_t per_batch = std::min(info().max_rows / search->beams, info().max_sources);
  if (options.batch_size > 0) per_batch = std::min<int64_t>(per_batch, options.batch_size);
  const int64_t limit = info().max_source_length;
  const int64_t eos = info().defaults.eos_token;
  // What the model translates: a text's ids, or for a text longer than the model takes,
  // its pieces of limit - 1 tokens each with its own </s> (bergamot-translator's
  // max-length-break); their translations are joined with nothing between them, as
  // the engine joins them.
  struct Piece {
    size_t text;
    std::vector<int64_t> ids;
    std::vector<int64_t> generated;
    std::string translated;
  };
  std::vector<Piece> pieces;
  std::vector<StatusOr<Translation>> results;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].find_first_not_of(" \t\r\n") == std::string::npos) {
      // A blank line of a text file translates to itself, as bergamot-translator
      // returns an empty line for one: nothing to tokenize, nothing to decode.
      Translation blank;
      blank.text = texts[i];
      results.emplace_back(std::move(blank));
      continue;
    }
    auto ids = tokenizer_->Encode(options.prefix + texts[i]);
    if (!ids.ok()) {
      results.emplace_back(ids.status());
      continue;
    }
    if (static_cast<int64_t>(ids->size()) <= limit) {
      pieces.push_back({i, ids.value(), {}, {}});
    } else if (limit < 2 || !cuts_long_sources_) {
      results.emplace_back(Failure(Error::InvalidArgument, "%zu tokens is more than this model's max_source_length of %lld",
                                   ids->size(), static_cast<long long>(limit)));
      continue;
    } else {
      const size_t body = ids->size() - 1, step = static_cast<size_t>(limit - 1);  // ids end with </s>
      for (size_t start = 0; start < body; start += step) {
        std::vector<int64_t> chunk(ids->begin() + start, ids->begin() + std::min(body, start + step));
        chunk.push_back(eos);
        pieces.push_back({i, std::move(chunk), {}, {}});
      }
    }
    Translation translation;
    translation.source_ids = std::move(ids.value());
    results.emplace_back(std::move(translation));
  }
  // Batches of similar lengths waste less on padding; results keep the input order.
  std::vector<size_t> order(pieces.size());
  for (size_t p = 0; p < order.size(); ++p) order[p] = p;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pieces[a].ids.size() < pieces[b].ids.size(); });
  for (size_t start = 0; start < order.size(); start += per_batch) {
    const size_t end = std::min(order.size(), start + static_cast<size_t>(per_batch));
    std::vector<std::vector<int64_t>> sources;
    for (size_t o = start; o < end; ++o) sources.push_back(pieces[order[o]].ids);
    auto generated = Generate(sources, options);
    if (!generated.ok()) return generated.status();
    for (size_t o = start; o < end; ++o) {
      Piece& piece = pieces[order[o]];
      piece.generated = std::move(generated->at(o - start));
      auto text = tokenizer_->Decode(piece.generated);
      if (!text.ok()) return text.status();
      piece.translated = std::move(text.value());
    }
  }
  for (Piece& piece : pieces) {  // in input order
    Translation& translation = results[piece.text].value();
    translation.ids.insert(translation.ids.end(), piece.generated.begin(), piece.generated.end());
    translation.text += piece.translated;
  }
  return results;
}

}  // namespace pteforge
