#include "cc/vad/vad_model.h"

#include <cstring>

#include "cc/vad/segments.h"

namespace pteforge {
namespace {

StatusOr<std::vector<int64_t>> IntConstants(Session& session, const char* name, const std::string& what) {
  auto values = session.Execute(name, {});
  if (!values.ok()) {
    return Failure(Error::InvalidProgram, "%s is not a Silero VAD program (models/silero_vad): constant '%s': %s",
                   what.c_str(), name, values.status().message().c_str());
  }
  std::vector<int64_t> numbers;
  for (const Value& value : values.value()) {
    const auto* number = std::get_if<int64_t>(&value);
    if (number == nullptr) {
      return Failure(Error::InvalidProgram, "%s: constant '%s' holds %s, not integers", what.c_str(), name,
                     DescribeValue(value).c_str());
    }
    numbers.push_back(*number);
  }
  return numbers;
}

}  // namespace

std::string VadMethodName(int sample_rate) { return "process_" + std::to_string(sample_rate / 1000) + "k"; }

StatusOr<std::unique_ptr<VadModel>> VadModel::Create(std::unique_ptr<Session> session, const std::string& what) {
  std::unique_ptr<VadModel> model(new VadModel());
  model->session_ = std::move(session);
  model->name_ = what;
  auto rates = IntConstants(*model->session_, "sample_rates", what);
  if (!rates.ok()) return rates.status();
  auto chunks = IntConstants(*model->session_, "chunk_samples", what);
  if (!chunks.ok()) return chunks.status();
  if (rates->empty() || rates->size() != chunks->size()) {
    return Failure(Error::InvalidProgram, "%s: sample_rates and chunk_samples do not pair up", what.c_str());
  }
  for (size_t i = 0; i < rates->size(); ++i) {
    int rate = static_cast<int>(rates->at(i));
    if (ChunkSamples(rate) == 0 || chunks->at(i) != ChunkSamples(rate)) {
      return Failure(Error::InvalidProgram, "%s: %lld samples at %d Hz is not a Silero VAD chunk", what.c_str(),
                     static_cast<long long>(chunks->at(i)), rate);
    }
    std::string method = VadMethodName(rate);
    auto signature = model->session_->Signature(method);
    if (!signature.ok()) return Failure(Error::InvalidProgram, "%s: %s", what.c_str(), signature.status().message().c_str());
    const std::vector<ValueSpec>& inputs = signature->inputs;
    if (inputs.size() != 1 || inputs[0].dtype != ScalarType::Float || inputs[0].max_sizes != std::vector<int64_t>{1, ChunkSamples(rate)}) {
      return Failure(Error::InvalidProgram, "%s: %s does not take one float32 [1, %lld] chunk", what.c_str(),
                     method.c_str(), static_cast<long long>(ChunkSamples(rate)));
    }
    model->rates_.push_back(rate);
    model->methods_.push_back(method);
  }
  return model;
}

Status VadModel::CheckRate(int sample_rate) const {
  for (int rate : rates_) {
    if (rate == sample_rate) return Status();
  }
  std::string have;
  for (int rate : rates_) have += (have.empty() ? "" : " and ") + std::to_string(rate);
  return Failure(Error::NotSupported, "%s has models for %s Hz only, not %d Hz (export one with rates=%d)",
                 name_.c_str(), have.c_str(), sample_rate, sample_rate);
}

StatusOr<float> VadModel::Process(int sample_rate, const float* chunk) {
  size_t index = 0;
  while (index < rates_.size() && rates_[index] != sample_rate) ++index;
  if (index == rates_.size()) return CheckRate(sample_rate);
  int64_t samples = ChunkSamples(sample_rate);
  if (input_.sizes != std::vector<int64_t>{1, samples}) input_ = HostTensor::Zeros(ScalarType::Float, {1, samples});
  std::memcpy(input_.mutable_data<float>(), chunk, samples * sizeof(float));
  auto outputs = session_->Execute(methods_[index], {input_});
  if (!outputs.ok()) return outputs.status();
  const auto* probability = outputs->size() == 1 ? std::get_if<HostTensor>(&outputs->at(0)) : nullptr;
  if (probability == nullptr || probability->dtype != ScalarType::Float || probability->numel() != 1) {
    return Failure(Error::InvalidProgram, "%s: %s did not return one float32 probability", name_.c_str(),
                   methods_[index].c_str());
  }
  return probability->data<float>()[0];
}

Status VadModel::Reset() { return session_->ResetState(); }

}  // namespace pteforge
