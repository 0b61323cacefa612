#include "cc/vad/shared_program.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pteforge {

StatusOr<std::unique_ptr<SharedProgram>> SharedProgram::Map(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Failure(Error::AccessFailed, "cannot open the model %s: %s", path.c_str(), std::strerror(errno));
  struct stat info;
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Failure(Error::AccessFailed, "the model %s is not a regular file", path.c_str());
  }
  std::unique_ptr<SharedProgram> program(new SharedProgram());
  program->path_ = path;
  program->size_ = static_cast<size_t>(info.st_size);
  if (program->size_ == 0) {
    ::close(fd);
    return Failure(Error::InvalidProgram, "the model %s is empty, not an ExecuTorch program", path.c_str());
  }
  void* data = ::mmap(nullptr, program->size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (data == MAP_FAILED) return Failure(Error::AccessFailed, "cannot map the model %s: %s", path.c_str(), std::strerror(errno));
  program->data_ = data;
  return program;
}

SharedProgram::~SharedProgram() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

StatusOr<std::unique_ptr<VadModel>> SharedProgram::NewStream() const {
  SessionOptions options;
  options.share_packed_weights = true;  // one packed copy of the weights for every stream
  auto session = Session::OpenBuffer(data_, size_, options);
  if (!session.ok()) {
    return Failure(session.status().code(), "the model %s: %s", path_.c_str(), session.status().message().c_str());
  }
  return VadModel::Create(std::move(session.value()), path_);
}

}  // namespace pteforge
