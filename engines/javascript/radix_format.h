/* Number.prototype.toString(radix) digits for QuickJS in the wasm32-wasi build
 * (radix_format.c). */
#ifndef SANDBOX_ENGINES_JAVASCRIPT_RADIX_FORMAT_H_
#define SANDBOX_ENGINES_JAVASCRIPT_RADIX_FORMAT_H_

/* Room for any finite double in radix 2: sign, 1024 integer digits, point, 1074 fraction digits. */
enum { kSbxRadixBufferSize = 2200 };

/* Writes finite `value` in `radix` (2..36) into out (out_size bytes, NUL-terminated). */
void sbx_js_dtoa_radix(char* out, int out_size, double value, int radix);

#endif /* SANDBOX_ENGINES_JAVASCRIPT_RADIX_FORMAT_H_ */
