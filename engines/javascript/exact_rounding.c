/* Number.prototype.toFixed, toExponential and toPrecision rounding as ECMAScript requires
 * (docs/languages.md#javascript): of the two nearest n, "pick the larger n", i.e. a tie in the
 * exact decimal value of the double rounds away from zero. QuickJS relies on printf plus a
 * rounding-mode trick (CONFIG_PRINTF_RNDN) that Wasm cannot do (it has no FE_UPWARD or
 * FE_DOWNWARD), and wasi-libc's printf rounds ties to even: (25).toExponential(0) was "2e+1".
 *
 * Here printf only produces the exact decimal expansion (it is exact for any precision), and the
 * rounding is done on those digits. Every finite double has at most 767 significant decimal
 * digits and at most 1074 digits after the point, so the buffers below hold all of them and a
 * tie is recognised exactly. patch_quickjs.cmake routes QuickJS's js_ecvt (fixed digits) and
 * js_fcvt to these functions in the wasm32-wasi build. */
#include "exact_rounding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  kSignificantDigits = 780, /* > 767 */
  kFractionDigits = 1080,   /* > 1074 */
  kMaxIntegerDigits = 310,  /* DBL_MAX has 309 */
};

/* Rounds the digit string digits[0, n) up by one unit in its last place; returns 1 when the
 * carry leaves the string (it was all nines, now all zeros). Non-digits (a '.') are skipped. */
static int increment_digits(char* digits, int n) {
  for (int i = n - 1; i >= 0; i--) {
    if (digits[i] == '.') continue;
    if (digits[i] != '9') {
      digits[i]++;
      return 0;
    }
    digits[i] = '0';
  }
  return 1;
}

void sbx_js_ecvt_exact(double d, int n_digits, int* decpt, int* sign, char* buf) {
  char text[kSignificantDigits + 16];
  /* "+D.DDD...e+XX": the sign, one digit, the point, kSignificantDigits - 1 digits. */
  snprintf(text, sizeof text, "%+.*e", kSignificantDigits - 1, d);
  *sign = text[0] == '-';
  char* mantissa = text + 1;
  memmove(mantissa + 1, mantissa, 1); /* drop the point: the digits become contiguous */
  mantissa++;
  *decpt = atoi(mantissa + kSignificantDigits + 1) + 1; /* after the digits and the 'e' */
  memcpy(buf, mantissa, (size_t)n_digits);
  buf[n_digits] = '\0';
  /* The dropped digits are exact: a first one of 5 or more is at least the half. */
  if (mantissa[n_digits] >= '5' && increment_digits(buf, n_digits)) {
    buf[0] = '1';
    (*decpt)++;
  }
}

void sbx_js_fcvt_exact(char* buf, int buf_size, double d, int n_digits) {
  char text[kMaxIntegerDigits + kFractionDigits + 8];
  snprintf(text, sizeof text, "%.*f", kFractionDigits, d);
  char* point = strchr(text, '.');
  char* digits = text[0] == '-' ? text + 1 : text;
  char* end = point + 1 + n_digits; /* the first dropped digit */
  int round_up = *end >= '5';
  if (n_digits == 0) end = point; /* no point without fraction digits, as printf */
  *end = '\0';
  char carry[2] = "";
  if (round_up && increment_digits(digits, (int)(end - digits))) carry[0] = '1';
  snprintf(buf, (size_t)buf_size, "%.*s%s%s", (int)(digits - text), text, carry, digits);
}
