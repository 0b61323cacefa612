// ExecuTorch's platform layer (runtime/platform/platform.h) for the Cortex-M55 images:
// time from SysTick, log lines to the semihosting console, and abort as a non-zero
// exit that the host sees (qemu exits with the program's status). Strong definitions:
// they replace the runtime's weak minimal ones.
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <executorch/runtime/platform/platform.h>

namespace {

// SysTick (Armv8-M system timer): a 24-bit counter counting down at the core clock.
struct SysTickRegisters {
  volatile uint32_t control;  // CSR
  volatile uint32_t reload;   // RVR
  volatile uint32_t current;  // CVR
};
SysTickRegisters* const kSysTick = reinterpret_cast<SysTickRegisters*>(0xE000E010u);
constexpr uint32_t kReload = 0x00FFFFFFu;
// The MPS3 AN547's core clock (QEMU's mps3-an547 model uses the board's 32 MHz).
constexpr uint32_t kCoreHz = 32000000u;

volatile uint64_t wraps = 0;  // SysTick periods elapsed (counted by its interrupt)

// SCB->ICSR: bit 26 says a SysTick exception is pending (a wrap not yet counted).
volatile uint32_t* const kIcsr = reinterpret_cast<volatile uint32_t*>(0xE000ED04u);
constexpr uint32_t kSysTickPending = 1u << 26;

}  // namespace

// Called on every SysTick wrap (toolchains/cortex_m55/startup.c's vector table).
extern "C" void SysTick_Handler(void) { wraps = wraps + 1; }

void et_pal_init(void) {
  // The runtime calls this from every runtime_init(); restarting would move time back.
  if (kSysTick->control & 0x1u) return;
  kSysTick->reload = kReload;
  kSysTick->current = 0;
  // Enable, interrupt on wrap, count the processor clock.
  kSysTick->control = 0x7u;
  // The counter starts at 0 and reloads at the next tick without counting a wrap:
  // read before that, time would seem to go back by a whole period.
  for (int spin = 0; spin < 1000000 && kSysTick->current == 0; ++spin) {
  }
}

ET_NORETURN void et_pal_abort(void) {
  static const char message[] = "executorch: the runtime aborted\n";
  write(2, message, sizeof(message) - 1);
  _exit(134);  // as a shell reports SIGABRT
}

et_timestamp_t et_pal_current_ticks(void) {
  // Read the wrap count around the counter, so a wrap in between is not lost; a wrap
  // whose interrupt is still pending (the counter just reloaded) counts too.
  uint64_t before, after;
  uint32_t counter;
  bool pending;
  do {
    before = wraps;
    counter = kSysTick->current;
    pending = (*kIcsr & kSysTickPending) != 0;
    after = wraps;
  } while (before != after);
  uint64_t periods = before + (pending && counter > kReload / 2 ? 1 : 0);
  return periods * (uint64_t{kReload} + 1) + (kReload - counter);
}

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  // 1e9 / 32e6 = 125 / 4 ns per tick.
  static_assert(kCoreHz == 32000000u, "update the ratio below");
  return {125, 4};
}

void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level, const char* filename,
                             const char* function, size_t line, const char* message, size_t length) {
  (void)timestamp;
  (void)function;
  const char* base = strrchr(filename, '/');
  fprintf(stderr, "%c executorch:%s:%u] %.*s\n", static_cast<char>(level), base ? base + 1 : filename,
          static_cast<unsigned>(line), static_cast<int>(length), message);
}

void* et_pal_allocate(size_t size) {
  (void)size;
  return nullptr;  // the Session gives the runtime all its memory (StaticMemory)
}

void et_pal_free(void* pointer) { (void)pointer; }
