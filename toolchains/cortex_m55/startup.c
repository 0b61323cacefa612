// Bare-metal startup for the Cortex-M55 on the MPS3 AN547 board (qemu-system-arm).
//
// The vector table and reset handler are ours rather than newlib's rdimon _start, which
// asks semihosting for a stack pointer and does not work on this board (FINDINGS.md).
// The reset handler zeroes .bss, enables the FPU and MVE, sets up newlib's semihosting
// handles and static constructors, reads the command line from the host through
// semihosting, and exits with main()'s status: qemu, run with semihosting, exits
// with that status, so a test's pass/fail reaches the host test runner.
// A fault handler reports the fault and exits non-zero rather than spinning. The stack
// limit register makes a stack overflow such a fault instead of silent corruption.
// A program may define SysTick_Handler (cc/embedded's clock does); other interrupts
// are not used. The stack is painted at reset, so pteforge_stack_peak() can tell how
// deep it has been (images print it next to the heap's peak).

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];
extern uint32_t __stack_top[];
extern uint32_t __stack_limit[];

extern void initialise_monitor_handles(void);
extern void __libc_init_array(void);
extern int main(int argc, char** argv);

// Exit status of a program stopped by a CPU fault (as a shell reports SIGSEGV).
#define FAULT_EXIT_STATUS 139

enum { kSysGetCmdline = 0x15 };

// One semihosting call (the Arm "bkpt 0xAB" convention for M-profile cores).
static int semihosting_call(int operation, void* argument) {
  register int r0 __asm__("r0") = operation;
  register void* r1 __asm__("r1") = argument;
  __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

#define MAX_ARGS 32
static char command_line[1024];
static char* argv_storage[MAX_ARGS + 1];

// Splits the host-supplied command line (program name first) on spaces.
static int read_command_line(char*** argv) {
  struct {
    char* buffer;
    int length;
  } block = {command_line, sizeof(command_line) - 1};
  int argc = 0;
  if (semihosting_call(kSysGetCmdline, &block) == 0) {
    command_line[block.length] = '\0';
    for (char* token = strtok(command_line, " "); token != NULL && argc < MAX_ARGS;
         token = strtok(NULL, " ")) {
      argv_storage[argc++] = token;
    }
  }
  if (argc == 0) argv_storage[argc++] = "program";
  argv_storage[argc] = NULL;
  *argv = argv_storage;
  return argc;
}

// Every stack word the program has not reached still holds this.
#define STACK_PAINT 0xC5C5C5C5u

// Paints the stack from its limit up to just below the caller's frame. No locals on
// the stack: it runs before anything else, in registers.
static void __attribute__((noinline)) paint_stack(void) {
  uint32_t* here;
  __asm__ volatile("mov %0, sp" : "=r"(here));
  for (volatile uint32_t* word = __stack_limit; word < here - 16; ++word) *word = STACK_PAINT;
}

// The deepest the stack has been since reset, in bytes: from its top down to the
// lowest word that no longer holds the paint.
size_t pteforge_stack_peak(void) {
  const uint32_t* word = __stack_limit;
  while (word < __stack_top && *word == STACK_PAINT) ++word;
  return (size_t)((const char*)__stack_top - (const char*)word);
}

// The stack the linker script reserved (STACK_SIZE), in bytes.
size_t pteforge_stack_size(void) { return (size_t)((const char*)__stack_top - (const char*)__stack_limit); }

void Reset_Handler(void) {
  // Armv8-M: a push below the stack's end faults (UsageFault STKOF) instead of
  // overwriting .bss and the heap.
  __asm__ volatile("msr msplim, %0" : : "r"(__stack_limit));
  paint_stack();
  for (uint32_t* word = __bss_start__; word < __bss_end__; ++word) *word = 0;
  // CPACR: full access to coprocessors 10 and 11 (FPU and MVE).
  volatile uint32_t* cpacr = (volatile uint32_t*)0xE000ED88u;
  *cpacr |= 0xFu << 20;
  __asm__ volatile("dsb\n isb" ::: "memory");
  initialise_monitor_handles();
  __libc_init_array();
  char** argv;
  int argc = read_command_line(&argv);
  exit(main(argc, argv));
}

void Fault_Handler(void) {
  uint32_t cfsr = *(volatile uint32_t*)0xE000ED28u;
  // UsageFault STKOF: the stack grew past __stack_limit (the linker script's STACK_SIZE).
  const char* what = (cfsr & (1u << 20)) ? " (stack overflow)" : "";
  fprintf(stderr, "cortex_m55: CPU fault%s (CFSR=0x%08lx); stopping\n", what, (unsigned long)cfsr);
  _exit(FAULT_EXIT_STATUS);
}

void SysTick_Handler(void) __attribute__((weak, alias("Fault_Handler")));

// The board has no entropy source. newlib's arc4random and libstdc++'s random_device
// (linked by random-number kernels) ask for one; they get an error, not a link failure.
int getentropy(void* buffer, size_t length) {
  (void)buffer;
  (void)length;
  errno = ENOSYS;
  return -1;
}

typedef void (*Handler)(void);

// Initial stack pointer, then the 15 system exception handlers. Interrupts are not
// used, so no external interrupt vectors follow.
__attribute__((section(".vectors"), used)) static const Handler vectors[16] = {
    (Handler)__stack_top,  // initial SP
    Reset_Handler,
    Fault_Handler,  // NMI
    Fault_Handler,  // HardFault
    Fault_Handler,  // MemManage
    Fault_Handler,  // BusFault
    Fault_Handler,  // UsageFault
    Fault_Handler,  // SecureFault
    0, 0, 0,
    Fault_Handler,  // SVCall
    Fault_Handler,  // DebugMonitor
    0,
    Fault_Handler,  // PendSV
    SysTick_Handler,
};
