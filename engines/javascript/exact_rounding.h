/* ECMAScript rounding for QuickJS's fixed-digit number formatting in the wasm32-wasi build
 * (exact_rounding.c). Both functions need a finite double; QuickJS handles NaN, the infinities
 * and -0 before it calls them. */
#ifndef SANDBOX_ENGINES_JAVASCRIPT_EXACT_ROUNDING_H_
#define SANDBOX_ENGINES_JAVASCRIPT_EXACT_ROUNDING_H_

/* js_ecvt's contract for n_digits significant digits (1..101): the digits of |d| rounded half
 * up in buf (n_digits + 1 bytes, NUL-terminated), the position of the decimal point relative to
 * them (d = 0.digits * 10^decpt), and whether d is negative. */
void sbx_js_ecvt_exact(double d, int n_digits, int* decpt, int* sign, char* buf);

/* js_fcvt's contract: d (|d| < 1e21) with n_digits (0..100) digits after the point, rounded half
 * away from zero, as printf's "%.*f" would print it, into buf of buf_size bytes. */
void sbx_js_fcvt_exact(char* buf, int buf_size, double d, int n_digits);

#endif /* SANDBOX_ENGINES_JAVASCRIPT_EXACT_ROUNDING_H_ */
