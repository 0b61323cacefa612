// A program embedded in a bare-metal image, with the static memory its Session uses.
//
// pte_embed (cc/embedded/defs.bzl) generates the definition of ImageProgram() for one
// .pte: its bytes linked in as read-only data, its replay record if asked for, and
// static buffers sized at build time from the program's report. An image links exactly
// one pte_embed library.
//
//   const EmbeddedProgram& embedded = ImageProgram();
//   StaticMemory memory(embedded.buffers);
//   SessionOptions options;
//   options.memory = &memory;
//   auto session = Session::OpenBuffer(embedded.data, embedded.size, options);
#ifndef PTEFORGE_CC_EMBEDDED_EMBEDDED_PROGRAM_H_
#define PTEFORGE_CC_EMBEDDED_EMBEDDED_PROGRAM_H_

#include <cstddef>
#include <cstdint>

#include "cc/runtime/session_memory.h"

namespace pteforge {

struct EmbeddedProgram {
  const char* name;     // the exporter's name for the program
  const uint8_t* data;  // the .pte, 128-byte aligned
  size_t size;
  const char* replay;   // the replay record (pteforge.replay), or null
  size_t replay_size;
  StaticBuffers buffers;  // zeroed static memory for a StaticMemory
};

// The image's program (defined by the generated pte_embed sources).
const EmbeddedProgram& ImageProgram();

}  // namespace pteforge

#endif  // PTEFORGE_CC_EMBEDDED_EMBEDDED_PROGRAM_H_
