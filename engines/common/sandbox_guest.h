/* Guest side of the embedded-interpreter ABI (the host side is include/sandbox/embedded.h).
 *
 * An interpreter compiled as a WASI reactor (clang --target=wasm32-wasi -mexec-model=reactor)
 * exports these functions; the host calls them between WASI-hosted guest code:
 *
 *   _initialize()              wasi-libc constructors; called once, on a fresh instance only
 *                              (never after a snapshot restore)
 *   alloc(n) -> ptr            memory the host writes a request into
 *   dealloc(ptr)
 *   session_init() -> status   creates the interpreter and keeps it in a global
 *   eval(ptr, len) -> status   runs one request (format below)
 *   result_ptr() -> ptr        the response of the last session_init/eval
 *   result_len() -> len
 *   after_restore()            optional: called once after a restore (re-seed RNGs, ...)
 *
 * Status: 0 ok, 1 language error (the guest's own error, reported in the envelope), 2 internal
 * error (the response is a plain message; the host drops the instance).
 *
 * Request: a sequence of records `tag:u8 len:u32le bytes[len]`:
 *   'c'  the code to run (UTF-8)                             exactly once
 *   'w'  the working directory (absolute, under /workspace)  at most once
 *   'e'  one environment variable, "NAME=VALUE"              zero or more; they replace the
 *                                                            guest's whole environment
 *
 * Response of eval with status 0 or 1: a UTF-8 JSON envelope
 *   {"results": [{"text": "..."} | {"json": <value>}],        (at most one entry; may be absent)
 *    "error": {"name": "...", "message": "...", "traceback": ["..."]},   (absent on success)
 *    "cwd": "/workspace/..."}                                (optional: the cwd after the call)
 *
 * Guest output goes to fd 1/2 through WASI and must be flushed before eval returns.
 *
 * This header is compiled into guests only (it is not part of the host build).
 */
#ifndef SANDBOX_GUEST_H_
#define SANDBOX_GUEST_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SANDBOX_EXPORT(name) __attribute__((export_name(name)))

enum { SANDBOX_OK = 0, SANDBOX_LANGUAGE_ERROR = 1, SANDBOX_INTERNAL_ERROR = 2 };

/* A growable byte buffer. An append that cannot allocate is dropped and sets `failed` (until
 * the next sbx_buf_clear), so a caller checks once at the end instead of after every append. */
typedef struct {
  char* data;
  size_t len;
  size_t cap;
  int failed;
} sbx_buf;

static inline int sbx_buf_reserve(sbx_buf* b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char* p = (char*)realloc(b->data, cap);
  if (!p) {
    b->failed = 1;
    return 0;
  }
  b->data = p;
  b->cap = cap;
  return 1;
}
static inline void sbx_buf_append(sbx_buf* b, const char* s, size_t n) {
  if (!sbx_buf_reserve(b, n)) return;
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = 0;
}
static inline void sbx_buf_puts(sbx_buf* b, const char* s) { sbx_buf_append(b, s, strlen(s)); }
static inline void sbx_buf_clear(sbx_buf* b) {
  b->len = 0;
  b->failed = 0;
  if (b->data) b->data[0] = 0;
}

/* Appends `s` as a JSON string literal (quotes included). Invalid UTF-8 passes through; the
 * host decodes leniently. */
static inline void sbx_buf_json_string(sbx_buf* b, const char* s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  sbx_buf_append(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': sbx_buf_append(b, "\\\"", 2); break;
      case '\\': sbx_buf_append(b, "\\\\", 2); break;
      case '\n': sbx_buf_append(b, "\\n", 2); break;
      case '\r': sbx_buf_append(b, "\\r", 2); break;
      case '\t': sbx_buf_append(b, "\\t", 2); break;
      default:
        if (c < 0x20) {
          char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
          sbx_buf_append(b, esc, 6);
        } else {
          sbx_buf_append(b, (const char*)&c, 1);
        }
    }
  }
  sbx_buf_append(b, "\"", 1);
}

/* The response buffer behind result_ptr/result_len. */
static sbx_buf sbx_result;

/* A parsed request: pointers into the request bytes (not NUL-terminated). */
typedef struct {
  const char* code;
  size_t code_len;
  const char* cwd;
  size_t cwd_len;
  size_t env_count;
  const char* env[256];
  size_t env_len[256];
} sbx_request;

/* Returns 0 on success, -1 on a malformed request. Environment entries beyond 256 are an error. */
static inline int sbx_parse_request(const char* p, size_t n, sbx_request* r) {
  memset(r, 0, sizeof *r);
  int have_code = 0;
  size_t i = 0;
  while (i < n) {
    if (n - i < 5) return -1;
    char tag = p[i];
    uint32_t len = (uint32_t)(unsigned char)p[i + 1] | (uint32_t)(unsigned char)p[i + 2] << 8 |
                   (uint32_t)(unsigned char)p[i + 3] << 16 | (uint32_t)(unsigned char)p[i + 4] << 24;
    i += 5;
    if (len > n - i) return -1;
    const char* v = p + i;
    i += len;
    switch (tag) {
      case 'c': r->code = v; r->code_len = len; have_code = 1; break;
      case 'w': r->cwd = v; r->cwd_len = len; break;
      case 'e':
        if (r->env_count == 256) return -1;
        r->env[r->env_count] = v;
        r->env_len[r->env_count] = len;
        r->env_count++;
        break;
      default: return -1;
    }
  }
  return have_code ? 0 : -1;
}

/* Copies a request field into a fresh NUL-terminated heap string (caller frees). */
static inline char* sbx_strndup(const char* s, size_t n) {
  char* p = (char*)malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

/* Makes stdout and stderr fully buffered (call before any output): the host counts every write
 * as one output piece (200 at most per call), so a driver writes in large pieces and flushes
 * both streams once, before eval returns. */
static inline void sbx_buffer_stdio(void) {
  static char out_buffer[1 << 15];
  static char err_buffer[1 << 15];
  setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
  setvbuf(stderr, err_buffer, _IOFBF, sizeof err_buffer);
}

/* Sets the response to a plain message (for status 2 and failed session_init). */
static inline void sbx_result_message(const char* msg) {
  sbx_buf_clear(&sbx_result);
  sbx_buf_puts(&sbx_result, msg);
}

/* The ABI's memory and response exports; include this header in exactly one translation unit. */
SANDBOX_EXPORT("alloc") void* sbx_abi_alloc(size_t n) { return malloc(n ? n : 1); }
SANDBOX_EXPORT("dealloc") void sbx_abi_dealloc(void* p) { free(p); }
SANDBOX_EXPORT("result_ptr") const char* sbx_abi_result_ptr(void) {
  return sbx_result.data ? sbx_result.data : "";
}
SANDBOX_EXPORT("result_len") size_t sbx_abi_result_len(void) { return sbx_result.len; }

#endif /* SANDBOX_GUEST_H_ */
