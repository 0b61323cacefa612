#include "cc/seq2seq/translation_model.h"

#include <algorithm>
#include <cmath>

#include "cc/runtime/constants.h"
#include "cc/seq2seq/bergamot_model.h"
#include "cc/seq2seq/marian_model.h"
#include "cc/seq2seq/seq2seq_program.h"

namespace pteforge {
namespace {

constexpr const char* kKind = "a translation model";

template <typename T>
Status Read(Session& session, const char* name, T* out) {
  return ReadConstant(session, name, kKind, out);
}

}  // namespace

StatusOr<std::unique_ptr<TranslationModel>> TranslationModel::Create(std::unique_ptr<Session> session,
                                                                     const std::string& what) {
  std::unique_ptr<TranslationModel> model(new TranslationModel());
  model->session_ = std::move(session);
  Session& s = *model->session_;
  TranslatorInfo& info = model->info_;
  PTEFORGE_RETURN_IF_ERROR(Read(s, "family", &info.family));
  if (info.family == "seq2seq") {
    // A pteforge.seq2seq text program: its encode / decode_step / reorder_cache take
    // what a Marian program's do; the search applies the model's logits processors.
    auto program = ReadSeq2SeqProgram(s, what);
    if (!program.ok()) return program.status();
    if (program->encoder_input != "input_ids") {
      return Failure(Error::NotSupported, "%s is a speech model (its encoder takes %s, not text)", what.c_str(),
                     program->encoder_input.c_str());
    }
    info.model_name = program->model_type;
    // OPUS-MT programs (models/opus) also say what the model is and whether its
    // weights are untrained, with their SentencePiece tokenizer.
    if (model->HasConstant("model_name")) PTEFORGE_RETURN_IF_ERROR(Read(s, "model_name", &info.model_name));
    if (model->HasConstant("weights_are_random")) {
      PTEFORGE_RETURN_IF_ERROR(Read(s, "weights_are_random", &info.weights_are_random));
    }
    if (model->HasConstant("unk_token_id")) PTEFORGE_RETURN_IF_ERROR(Read(s, "unk_token_id", &info.unk_token));
    info.vocab_size = program->vocab_size;
    info.max_rows = program->max_rows;
    info.max_sources = program->max_sources;
    info.max_source_length = program->max_source_length;
    info.max_target_length = program->max_target_length;
    info.defaults = program->defaults;
    model->model_ = std::make_unique<MarianModel>(&s, info.vocab_size, info.defaults.pad_token);
    return model;
  }
  if (info.family != "bergamot") {
    return Failure(Error::NotSupported, "%s is a '%s' model; this translator handles: bergamot, seq2seq%s",
                   what.c_str(), info.family.c_str(),
                   info.family == "marian" ? " (a 'marian' program is from an older pteforge: export it again)" : "");
  }
  std::string vocab;
  SearchOptions& d = info.defaults;
  int64_t beams = 1;
  for (Status status : {
           Read(s, "model_name", &info.model_name), Read(s, "weights_are_random", &info.weights_are_random),
           Read(s, "vocab", &vocab), Read(s, "decoder_start_token_id", &d.start_token),
           Read(s, "eos_token_id", &d.eos_token), Read(s, "pad_token_id", &d.pad_token),
           Read(s, "unk_token_id", &info.unk_token),
           Read(s, "num_beams", &beams), Read(s, "max_length", &d.max_length),
           Read(s, "length_penalty", &d.length_penalty), Read(s, "early_stopping", &d.early_stopping),
           Read(s, "forced_eos", &d.forced_eos), Read(s, "max_rows", &info.max_rows),
           Read(s, "max_source_length", &info.max_source_length),
           Read(s, "max_target_length", &info.max_target_length)}) {
    PTEFORGE_RETURN_IF_ERROR(status);
  }
  d.beams = static_cast<int>(beams);
  info.max_sources = info.max_rows;  // a Bergamot program keeps a source per row
  info.vocab_size = static_cast<int64_t>(std::count(vocab.begin(), vocab.end(), '\n')) + 1;
  std::string shortlist_bytes;
  int64_t multiple = 0;
  for (Status status : {Read(s, "shortlist", &shortlist_bytes), Read(s, "shortlist_multiple", &multiple),
                        Read(s, "max_length_factor", &info.max_length_factor)}) {
    PTEFORGE_RETURN_IF_ERROR(status);
  }
  auto shortlist = Shortlist::Parse(shortlist_bytes, info.vocab_size);
  if (!shortlist.ok()) return shortlist.status();
  model->model_ = std::make_unique<BergamotModel>(&s, info.vocab_size, d.pad_token, std::move(shortlist.value()),
                                                  multiple);
  return model;
}

TranslationModel::~TranslationModel() = default;

bool TranslationModel::HasConstant(const std::string& name) const {
  const std::vector<std::string>& constants = session_->constants();
  return std::find(constants.begin(), constants.end(), name) != constants.end();
}

StatusOr<std::string> TranslationModel::ReadText(const char* name) {
  std::string text;
  Status status = Read(*session_, name, &text);
  if (!status.ok()) return status;
  return text;
}

TranslateStats TranslationModel::stats() const { return model_->stats(); }

void TranslationModel::ResetStats() { model_->ResetStats(); }

StatusOr<SearchOptions> TranslationModel::Resolve(const TranslateOptions& options) const {
  SearchOptions search = info_.defaults;
  if (options.beams > 0) search.beams = options.beams;
  if (options.max_length > 0) search.max_length = options.max_length;
  if (options.min_length > 0) search.min_length = options.min_length;
  if (options.forced_bos_token >= 0) {
    if (options.forced_bos_token >= info_.vocab_size) {
      return Failure(Error::InvalidArgument, "token %lld is outside the model's vocabulary of %lld",
                     static_cast<long long>(options.forced_bos_token), static_cast<long long>(info_.vocab_size));
    }
    search.forced_bos_token = options.forced_bos_token;
  }
  PTEFORGE_RETURN_IF_ERROR(CheckFits(search, info_.max_rows, info_.max_target_length));
  return search;
}

StatusOr<std::vector<std::vector<int64_t>>> TranslationModel::Generate(const std::vector<std::vector<int64_t>>& sources,
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
  if (static_cast<int64_t>(sources.size()) * search->beams > info_.max_rows ||
      static_cast<int64_t>(sources.size()) > info_.max_sources) {
    return Failure(Error::InvalidArgument, "%zu sentences x %d beams exceed the model's %lld rows or %lld sources",
                   sources.size(), search->beams, static_cast<long long>(info_.max_rows),
                   static_cast<long long>(info_.max_sources));
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

}  // namespace pteforge
