// A program that behaves as told, to check that on_target_test reports each outcome
// correctly on every target: `pass` exits 0, `exit=N` exits N, `crash` traps (SIGTRAP
// on Linux, a HardFault on Cortex-M), `hang` never returns.
//
// Uses the C library only, so it builds for bare metal as well as for Linux.

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s pass|exit=N|crash|hang\n", argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  printf("target_behaviour: %s\n", mode);
  fflush(stdout);
  if (strcmp(mode, "pass") == 0) return 0;
  if (strncmp(mode, "exit=", 5) == 0) return atoi(mode + 5);
  if (strcmp(mode, "crash") == 0) __builtin_trap();
  if (strcmp(mode, "hang") == 0) {
    for (volatile int spin = 0;; spin = spin + 1) {
    }
  }
  fprintf(stderr, "unknown mode '%s'\n", mode);
  return 2;
}
