// printf's C99 length modifiers (%lld, %llu, %zu, %td, %jd, %hhd) on the newlib-nano of
// Debian's toolchain for Arm, whose reduced formatted I/O has none of them: "%lld"
// prints "ld" and every later argument shifts. ExecuTorch's own log messages use %zu
// and PRId64 (%lld) throughout, as does pteforge. The linker routes the printf family
// here (-Wl,--wrap=..., the :startup library's linkopts): each call's format is walked
// here, and each conversion is formatted on its own, its argument taken with the type
// its modifiers give. Integers of any width are written here; strings, characters,
// pointers and floating point (nano's, with -u _printf_float) go to newlib's snprintf
// one at a time. The result is what a C99 printf writes.
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int __real_snprintf(char* buffer, size_t size, const char* format, ...);

// Where formatted text goes: a stream, or a buffer of `size` bytes (what fits, then a
// NUL, as snprintf). `length` counts everything, written or not.
typedef struct {
  FILE* stream;
  char* buffer;
  size_t size;
  size_t length;
} Sink;

static void Put(Sink* sink, const char* text, size_t count) {
  if (sink->stream != NULL) {
    fwrite(text, 1, count, sink->stream);
  } else if (sink->length + 1 < sink->size) {
    size_t room = sink->size - 1 - sink->length;
    memcpy(sink->buffer + sink->length, text, count < room ? count : room);
  }
  sink->length += count;
}

static void Repeat(Sink* sink, char c, int count) {
  for (; count > 0; --count) Put(sink, &c, 1);
}

// One conversion's flags, width and precision (-1: none).
typedef struct {
  int left, plus, space, alternate, zero;
  int width, precision;
} Spec;

// An integer conversion (d i u x X o), |value| given with its sign apart.
static void Integer(Sink* sink, const Spec* spec, char conversion, uint64_t magnitude, int negative) {
  const unsigned base = conversion == 'o' ? 8 : (conversion == 'x' || conversion == 'X') ? 16 : 10;
  const char* digits = conversion == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  char text[24];
  int count = 0;
  for (uint64_t v = magnitude; v != 0; v /= base) text[count++] = digits[v % base];
  int precision = spec->precision < 0 ? 1 : spec->precision;
  int zeros = precision > count ? precision - count : 0;
  const char* prefix = negative ? "-" : (conversion == 'd' || conversion == 'i') && spec->plus ? "+"
                       : (conversion == 'd' || conversion == 'i') && spec->space ? " " : "";
  if (spec->alternate && magnitude != 0 && base == 16) prefix = conversion == 'X' ? "0X" : "0x";
  if (spec->alternate && base == 8 && zeros == 0) zeros = 1;
  const int body = (int)strlen(prefix) + zeros + count;
  const int pad = spec->width > body ? spec->width - body : 0;
  const int zero_pad = spec->zero && !spec->left && spec->precision < 0;
  if (!spec->left && !zero_pad) Repeat(sink, ' ', pad);
  Put(sink, prefix, strlen(prefix));
  if (zero_pad) Repeat(sink, '0', pad);
  Repeat(sink, '0', zeros);
  while (count > 0) Put(sink, &text[--count], 1);
  if (spec->left) Repeat(sink, ' ', pad);
}

// A string (%s), padded to the width, cut at the precision.
static void String(Sink* sink, const Spec* spec, const char* text) {
  if (text == NULL) text = "(null)";
  size_t count = strlen(text);
  if (spec->precision >= 0 && (size_t)spec->precision < count) count = (size_t)spec->precision;
  const int pad = spec->width > (int)count ? spec->width - (int)count : 0;
  if (!spec->left) Repeat(sink, ' ', pad);
  Put(sink, text, count);
  if (spec->left) Repeat(sink, ' ', pad);
}

// One conversion newlib-nano handles (floating point, %c, %p), through its snprintf.
#define THROUGH_NEWLIB(value)                                                          \
  do {                                                                                 \
    char piece[512];                                                                   \
    int n = __real_snprintf(piece, sizeof(piece), one, value);                         \
    if (n > 0) Put(sink, piece, (size_t)n < sizeof(piece) ? (size_t)n : sizeof(piece) - 1); \
  } while (0)

static int Format(Sink* sink, const char* format, va_list* args) {
  const char* p = format;
  while (*p != '\0') {
    const char* literal = p;
    while (*p != '\0' && *p != '%') ++p;
    Put(sink, literal, (size_t)(p - literal));
    if (*p == '\0') break;
    const char* start = p++;
    if (*p == '%') {
      Put(sink, "%", 1);
      ++p;
      continue;
    }
    Spec spec = {0, 0, 0, 0, 0, 0, -1};
    for (;; ++p) {
      if (*p == '-') spec.left = 1;
      else if (*p == '+') spec.plus = 1;
      else if (*p == ' ') spec.space = 1;
      else if (*p == '#') spec.alternate = 1;
      else if (*p == '0') spec.zero = 1;
      else break;
    }
    if (*p == '*') {
      spec.width = va_arg(*args, int);
      if (spec.width < 0) {
        spec.left = 1;
        spec.width = -spec.width;
      }
      ++p;
    } else {
      while (*p >= '0' && *p <= '9') spec.width = spec.width * 10 + (*p++ - '0');
    }
    if (*p == '.') {
      ++p;
      spec.precision = 0;
      if (*p == '*') {
        spec.precision = va_arg(*args, int);
        if (spec.precision < 0) spec.precision = -1;  // as if none was given
        ++p;
      } else {
        while (*p >= '0' && *p <= '9') spec.precision = spec.precision * 10 + (*p++ - '0');
      }
    }
    // Length: 0 int, 1 long (and z, t: the size of long here), 2 long long (and j).
    int length = 0;
    if (*p == 'h') {
      p += p[1] == 'h' ? 2 : 1;  // char and short arguments arrive as int
    } else if (*p == 'l') {
      length = p[1] == 'l' ? 2 : 1;
      p += length;
    } else if (*p == 'z' || *p == 't') {
      length = 1;
      ++p;
    } else if (*p == 'j') {
      length = 2;
      ++p;
    } else if (*p == 'L') {
      ++p;  // a long double is a double on this target
    }
    const char conversion = *p;
    if (conversion == '\0') break;
    ++p;
    // The conversion alone, for newlib: flags, width and precision as given (a '*'
    // already taken), without the length modifier.
    char one[32];
    int n = 0;
    one[n++] = '%';
    if (spec.left) one[n++] = '-';
    if (spec.plus) one[n++] = '+';
    if (spec.space) one[n++] = ' ';
    if (spec.alternate) one[n++] = '#';
    if (spec.zero) one[n++] = '0';
    n += __real_snprintf(one + n, sizeof(one) - (size_t)n, spec.width ? "%d" : "", spec.width);
    if (spec.precision >= 0) n += __real_snprintf(one + n, sizeof(one) - (size_t)n, ".%d", spec.precision);
    one[n++] = conversion;
    one[n] = '\0';
    switch (conversion) {
      case 'd':
      case 'i': {
        const int64_t value = length == 2 ? va_arg(*args, long long) : length == 1 ? va_arg(*args, long)
                                                                              : va_arg(*args, int);
        Integer(sink, &spec, conversion, value < 0 ? (uint64_t)0 - (uint64_t)value : (uint64_t)value, value < 0);
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        const uint64_t value = length == 2   ? va_arg(*args, unsigned long long)
                               : length == 1 ? va_arg(*args, unsigned long)
                                             : va_arg(*args, unsigned int);
        Integer(sink, &spec, conversion, value, 0);
        break;
      }
      case 's':
        String(sink, &spec, va_arg(*args, const char*));
        break;
      case 'c':
        THROUGH_NEWLIB(va_arg(*args, int));
        break;
      case 'p':
        THROUGH_NEWLIB(va_arg(*args, void*));
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A':
        THROUGH_NEWLIB(va_arg(*args, double));
        break;
      default:  // not a conversion: written as it stands
        Put(sink, start, (size_t)(p - start));
        break;
    }
  }
  return (int)sink->length;
}

int __wrap_vfprintf(FILE* stream, const char* format, va_list args) {
  Sink sink = {stream, NULL, 0, 0};
  va_list copy;
  va_copy(copy, args);
  int result = Format(&sink, format, &copy);
  va_end(copy);
  return result;
}

int __wrap_vprintf(const char* format, va_list args) { return __wrap_vfprintf(stdout, format, args); }

int __wrap_vsnprintf(char* out, size_t size, const char* format, va_list args) {
  Sink sink = {NULL, out, size, 0};
  va_list copy;
  va_copy(copy, args);
  int result = Format(&sink, format, &copy);
  va_end(copy);
  if (size > 0) out[sink.length < size ? sink.length : size - 1] = '\0';
  return result;
}

int __wrap_vsprintf(char* out, const char* format, va_list args) {
  return __wrap_vsnprintf(out, (size_t)-1 / 2, format, args);
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
