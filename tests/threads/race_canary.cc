// A deliberate data race: two threads increment one plain int. Built with
// --config=tsan, ThreadSanitizer must report it; race_canary_test.py checks that it
// does, so that a clean run of the other tests means something.
#include <cstdio>
#include <thread>

namespace {
int g_counter = 0;  // not atomic, no lock: the race
}

int main() {
#if defined(__SANITIZE_THREAD__)
  std::printf("instrumented\n");
#else
  std::printf("not instrumented\n");
#endif
  std::fflush(stdout);
  std::thread other([] {
    for (int i = 0; i < 1000; ++i) ++g_counter;
  });
  for (int i = 0; i < 1000; ++i) ++g_counter;
  other.join();
  return g_counter > 0 ? 0 : 1;
}
