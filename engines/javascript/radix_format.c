/* Number.prototype.toString(radix) for radix != 10 (docs/languages.md#javascript). QuickJS
 * 2021-03-27 converts only safe integers to another radix and prints anything else in decimal:
 * (0.5).toString(2) was "0.5", Math.random().toString(36) had decimal digits. ECMAScript leaves
 * the digits of a non-integer implementation-approximated; these are the ones V8 (node) prints:
 * fraction digits only as far as the double's precision (half the distance to the next double),
 * the last one rounded half to even, and integer digits beyond 2^53 written as zeros. */
#include "radix_format.h"

#include <math.h>
#include <stdio.h>

enum {
  kHalf = 1100, /* > 1074 binary fraction digits, > 1024 binary integer digits */
};

static const char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
static const double kTwoTo53 = 9007199254740992.0;

static int digit_value(char c) { return c > '9' ? c - 'a' + 10 : c - '0'; }

void sbx_js_dtoa_radix(char* out, int out_size, double value, int radix) {
  char buf[2 * kHalf + 2];
  int int_pos = kHalf;  /* integer digits are written leftwards from here */
  int frac_pos = kHalf; /* the point and fraction digits rightwards */
  int negative = value < 0;
  if (negative) value = -value;
  double integer = floor(value);
  double fraction = value - integer;
  double delta = 0.5 * (nextafter(value, INFINITY) - value);
  double min_delta = nextafter(0.0, 1.0);
  if (delta < min_delta) delta = min_delta;
  if (fraction >= delta) {
    buf[frac_pos++] = '.';
    do {
      fraction *= radix;
      delta *= radix;
      int digit = (int)fraction;
      buf[frac_pos++] = kDigits[digit];
      fraction -= digit;
      if ((fraction > 0.5 || (fraction == 0.5 && (digit & 1))) && fraction + delta > 1) {
        /* Round up: carry through the digits written, into the integer past the point. */
        for (;;) {
          frac_pos--;
          if (frac_pos == kHalf) {
            integer += 1;
            break;
          }
          int d = digit_value(buf[frac_pos]);
          if (d + 1 < radix) {
            buf[frac_pos++] = kDigits[d + 1];
            break;
          }
        }
        break;
      }
    } while (fraction >= delta);
  }
  /* Integer digits below the double's precision are zeros. */
  while (integer / radix >= kTwoTo53) {
    integer /= radix;
    buf[--int_pos] = '0';
  }
  do {
    double remainder = fmod(integer, radix);
    buf[--int_pos] = kDigits[(int)remainder];
    integer = (integer - remainder) / radix;
  } while (integer > 0);
  if (negative) buf[--int_pos] = '-';
  buf[frac_pos] = '\0';
  snprintf(out, (size_t)out_size, "%s", buf + int_pos);
}
