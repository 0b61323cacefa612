// The heap behind malloc and operator new on a bare-metal image: a static array whose
// size the image chose at build time (pte_embed's heap_kb), instead of newlib's default
// of everything between the end of .bss and the stack. It is in .bss, so the fit check
// counts it, and running out is a clear message (malloc then returns null) rather than
// a heap silently growing into the stack. Replaces librdimon's weak _sbrk.
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

extern uint8_t pteforge_heap[];
extern const size_t pteforge_heap_bytes;

static size_t heap_used = 0;
static size_t heap_peak = 0;

// The most the heap has held (embedded_program.h).
size_t pteforge_heap_peak(void) { return heap_peak; }

void* _sbrk(ptrdiff_t increment) {
  if (increment < 0) {  // malloc giving memory back from the top
    size_t decrement = (size_t)(-increment);
    if (decrement > heap_used) {
      errno = EINVAL;
      return (void*)-1;
    }
    void* previous_end = pteforge_heap + heap_used;
    heap_used -= decrement;
    return previous_end;
  }
  if ((size_t)increment > pteforge_heap_bytes - heap_used) {
    // snprintf + write: stdio's buffered paths could call malloc, and so _sbrk, again.
    static char message[200];
    int length = snprintf(message, sizeof(message),
                          "pteforge: the heap (%u bytes) is exhausted: %u in use, %d more asked for. "
                          "Give the image more (pte_embed(heap_kb = ...)).\n",
                          (unsigned)pteforge_heap_bytes, (unsigned)heap_used, (int)increment);
    if (length > 0) write(2, message, (size_t)length < sizeof(message) ? (size_t)length : sizeof(message) - 1);
    errno = ENOMEM;
    return (void*)-1;
  }
  void* block = pteforge_heap + heap_used;
  heap_used += (size_t)increment;
  if (heap_used > heap_peak) heap_peak = heap_used;
  return block;
}
