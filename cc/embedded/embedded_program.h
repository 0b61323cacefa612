// A program embedded in a bare-metal image, with the static memory its Session uses.
//
// pte_embed (bazel/embedded.bzl) generates the definition of ImageProgram() for one
// .pte: its bytes linked in as read-only data, its replay record if asked for, and
// static buffers sized at build time from the program's report. An image links exactly
// one pte_embed library.
//
//   auto image = OpenImageProgram();   // a Session over ImageProgram()'s static memory
//   image->session->Execute("forward", {...});
#ifndef PTEFORGE_CC_EMBEDDED_EMBEDDED_PROGRAM_H_
#define PTEFORGE_CC_EMBEDDED_EMBEDDED_PROGRAM_H_

#include <cstddef>
#include <cstdint>

#include <memory>
#include <string>
#include <utility>

#include <executorch/runtime/platform/platform.h>

#include "cc/runtime/session.h"
#include "cc/runtime/session_memory.h"

namespace pteforge {

struct EmbeddedProgram {
  const char* name;     // the exporter's name for the program
  const uint8_t* data;  // the .pte, 128-byte aligned
  size_t size;
  const char* replay;   // the replay record (pteforge.replay), or null
  size_t replay_size;
  StaticBuffers buffers;  // zeroed static memory for a StaticMemory
  size_t heap_bytes;      // the image's heap (bare metal; pte_embed's heap_kb)
};

// The image's program (defined by the generated pte_embed sources).
const EmbeddedProgram& ImageProgram();

// Milliseconds on ExecuTorch's platform clock (the board's SysTick) since `start`
// (executorch::runtime::pal_current_ticks()).
double MillisecondsSince(et_timestamp_t start);

// A Session on the image's program over its static memory, and how long loading took.
struct ImageSession {
  std::unique_ptr<StaticMemory> memory;  // must outlive the session
  std::unique_ptr<Session> session;
  double load_ms = 0;
};
StatusOr<ImageSession> OpenImageProgram();

// The image's program as a model of the images' mains (Model::Create(session, name):
// VadModel, TranslationModel, WhisperModel, CausalLm), and how long loading the program
// and creating the model took.
template <typename Model>
struct ImageModel {
  std::unique_ptr<StaticMemory> memory;  // must outlive the model
  std::unique_ptr<Model> model;
  double load_ms = 0;
};
template <typename Model>
StatusOr<ImageModel<Model>> OpenImageModel() {
  auto image = OpenImageProgram();
  if (!image.ok()) return image.status();
  et_timestamp_t start = executorch::runtime::pal_current_ticks();
  auto model = Model::Create(std::move(image->session), ImageProgram().name);
  if (!model.ok()) return model.status();
  return ImageModel<Model>{std::move(image->memory), std::move(model.value()),
                           image->load_ms + MillisecondsSince(start)};
}

// The most the image's heap has held so far, in bytes (cc/embedded/heap.c: bare metal
// only), or 0 where malloc is the C library's own.
size_t HeapPeakBytes();

// "heap peak H of N B, stack peak S of M B": the heap's and (on the Cortex-M55, whose
// startup paints the stack at reset) the stack's deepest use so far.
std::string MemoryPeaks(size_t heap_bytes);

}  // namespace pteforge

#endif  // PTEFORGE_CC_EMBEDDED_EMBEDDED_PROGRAM_H_
