# Copies quickjs.c with the changes wasm32-wasi needs and fixes of its 2021-03-27 release that
# users of the sandbox meet (build-time helper; docs/languages.md#javascript):
#   - CONFIG_ATOMICS off: Atomics need threads, which WASI preview1 does not have;
#   - CONFIG_PRINTF_RNDN off: Wasm has only round-to-nearest, no FE_UPWARD/FE_DOWNWARD, so
#     the printf rounding fix-up cannot work; instead js_ecvt (fixed digits: toPrecision,
#     toExponential) and js_fcvt (toFixed) round the exact decimal digits themselves, ties away
#     from zero as ECMAScript requires (exact_rounding.c);
#   - Number.prototype.toString(radix) of non-integers and of integers beyond 2^53 printed
#     decimal digits; radix_format.c writes them in the radix;
#   - decimal integer strings beyond 2^64 (literals, Number(), parseInt) were parsed as n * 10^k
#     with double rounding, one ulp off; strtod rounds them correctly;
#   - the token after a nested function's closing brace was read with the nested function's
#     keywords, so `await` (or `yield`) right after a function declaration inside an async
#     function (or generator) was a SyntaxError; it is now read as its enclosing function's.
# Each patched text must occur exactly once, so a different QuickJS fails loudly here.
#   cmake -DINPUT=<quickjs.c> -DOUTPUT=<patched quickjs.c> -P patch_quickjs.cmake
foreach(var INPUT OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "patch_quickjs.cmake: -D${var}=... is required")
  endif()
endforeach()
file(READ "${INPUT}" src)

# Replaces the one occurrence of `old` in src by `new`.
function(replace_once old new)
  string(FIND "${src}" "${old}" first)
  string(FIND "${src}" "${old}" last REVERSE)
  if(first EQUAL -1 OR NOT first EQUAL last)
    message(FATAL_ERROR "patch_quickjs.cmake: expected exactly one '${old}' in ${INPUT}")
  endif()
  string(REPLACE "${old}" "${new}" patched "${src}")
  set(src "${patched}" PARENT_SCOPE)
endfunction()

foreach(def CONFIG_ATOMICS CONFIG_PRINTF_RNDN)
  replace_once("\n#define ${def}\n" "\n#ifndef __wasi__\n#define ${def}\n#endif\n")
endforeach()

replace_once("static double js_strtod(const char *p, int radix, BOOL is_float)
{
    double d;
    int c;
    
    if (!is_float || radix != 10) {" "static double js_strtod(const char *p, int radix, BOOL is_float)
{
    double d;
    int c;
    
    if (radix != 10) {")

replace_once("    if (next_token(s)) {
        /* consume the '}' */
        goto fail;
    }

    /* in case there is no return, add one */
    if (js_is_live_code(s)) {
        emit_return(s, FALSE);
    }
done:" "    /* in case there is no return, add one */
    if (js_is_live_code(s)) {
        emit_return(s, FALSE);
    }
    /* the token after the body belongs to the enclosing function */
    s->cur_func = fd->parent;
    if (next_token(s)) {
        /* consume the '}' */
        goto fail;
    }
done:")

set(dtoa_head "static JSValue js_dtoa(JSContext *ctx,
                       double d, int radix, int n_digits, int flags)
{
")
replace_once("${dtoa_head}" "#ifdef __wasi__
#include \"radix_format.h\"
#endif
${dtoa_head}#ifdef __wasi__
    if (radix != 10 && flags == JS_DTOA_VAR_FORMAT && isfinite(d)) {
        char digits[kSbxRadixBufferSize];
        sbx_js_dtoa_radix(digits, sizeof(digits), d, radix);
        return JS_NewString(ctx, digits);
    }
#endif
")

set(ecvt_head "static int js_ecvt(double d, int n_digits, int *decpt, int *sign, char *buf,
                   BOOL is_fixed)
{
")
replace_once("${ecvt_head}" "#ifdef __wasi__
#include \"exact_rounding.h\"
#endif
${ecvt_head}#ifdef __wasi__
    if (is_fixed) {
        sbx_js_ecvt_exact(d, n_digits, decpt, sign, buf);
        return n_digits;
    }
#endif
")
set(fcvt_head "static void js_fcvt(char *buf, int buf_size, double d, int n_digits)
{
")
replace_once("${fcvt_head}" "${fcvt_head}#ifdef __wasi__
    sbx_js_fcvt_exact(buf, buf_size, d, n_digits);
    return;
#endif
")

file(WRITE "${OUTPUT}.tmp" "${src}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
