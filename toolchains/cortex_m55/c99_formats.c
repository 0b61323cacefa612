// printf's C99 length modifiers (%zu, %td, %jd, %hhd) on Debian's newlib for Arm, which
// is built without them: "%zu" prints "zu" and shifts every later argument. ExecuTorch's
// own log messages use %zu throughout, as does pteforge. The linker routes the printf
// family here (-Wl,--wrap=..., the :startup library's linkopts); each call's format is
// rewritten to modifiers newlib knows and passed on: on this 32-bit target size_t and
// ptrdiff_t have the size of long ('l'), intmax_t that of long long ('ll'), and a char
// argument is promoted to int anyway ('h').
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

_Static_assert(sizeof(size_t) == sizeof(long) && sizeof(ptrdiff_t) == sizeof(long),
               "z and t map to l only where they have the same size");
_Static_assert(sizeof(intmax_t) == sizeof(long long), "j maps to ll");

int __real_vprintf(const char* format, va_list args);
int __real_vfprintf(FILE* stream, const char* format, va_list args);
int __real_vsprintf(char* buffer, const char* format, va_list args);
int __real_vsnprintf(char* buffer, size_t size, const char* format, va_list args);

// Writes `format` with C99 length modifiers replaced into `out` (size `size`); returns
// `format` itself if there is nothing to replace or no room.
static const char* Rewrite(const char* format, char* out, size_t size) {
  size_t n = 0;
  int changed = 0;
  for (const char* p = format; *p != '\0'; ++p) {
    if (n + 3 >= size) return format;
    out[n++] = *p;
    if (*p != '%') continue;
    ++p;
    // Flags, width and precision pass through.
    while (*p != '\0' && (*p == '-' || *p == '+' || *p == ' ' || *p == '#' || *p == '.' || *p == '*' ||
                          (*p >= '0' && *p <= '9'))) {
      if (n + 3 >= size) return format;
      out[n++] = *p++;
    }
    if (*p == 'z' || *p == 't') {
      out[n++] = 'l';
      changed = 1;
    } else if (*p == 'j') {
      out[n++] = 'l';
      out[n++] = 'l';
      changed = 1;
    } else if (*p == 'h' && p[1] == 'h') {
      out[n++] = 'h';
      ++p;
      changed = 1;
    } else if (*p == '\0') {
      break;
    } else {
      out[n++] = *p;
    }
  }
  if (!changed) return format;
  out[n] = '\0';
  return out;
}

#define FORMAT_BUFFER 512

int __wrap_vprintf(const char* format, va_list args) {
  char buffer[FORMAT_BUFFER];
  return __real_vprintf(Rewrite(format, buffer, sizeof(buffer)), args);
}

int __wrap_vfprintf(FILE* stream, const char* format, va_list args) {
  char buffer[FORMAT_BUFFER];
  return __real_vfprintf(stream, Rewrite(format, buffer, sizeof(buffer)), args);
}

int __wrap_vsprintf(char* out, const char* format, va_list args) {
  char buffer[FORMAT_BUFFER];
  return __real_vsprintf(out, Rewrite(format, buffer, sizeof(buffer)), args);
}

int __wrap_vsnprintf(char* out, size_t size, const char* format, va_list args) {
  char buffer[FORMAT_BUFFER];
  return __real_vsnprintf(out, size, Rewrite(format, buffer, sizeof(buffer)), args);
}

int __wrap_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int result = __wrap_vprintf(format, args);
  va_end(args);
  return result;
}

int __wrap_fprintf(FILE* stream, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int result = __wrap_vfprintf(stream, format, args);
  va_end(args);
  return result;
}

int __wrap_sprintf(char* out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int result = __wrap_vsprintf(out, format, args);
  va_end(args);
  return result;
}

int __wrap_snprintf(char* out, size_t size, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int result = __wrap_vsnprintf(out, size, format, args);
  va_end(args);
  return result;
}
