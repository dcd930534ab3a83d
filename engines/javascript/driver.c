/* QuickJS-ng guest driver: the embedded ABI of engines/common/sandbox_guest.h over one JSRuntime
 * and JSContext that live as long as the instance (and across snapshots of its memory).
 *
 * REPL semantics:
 *   - the code runs as a classic global script, so top-level var, let, const, class and
 *     function declarations persist between calls (re-declaring a let is a SyntaxError, as in a
 *     browser console); the completion value of the script is the result;
 *   - a result that is a promise is awaited: pending jobs are drained after every call, and a
 *     promise still pending then is an error (there are no timers or I/O to settle it later);
 *   - results (docs/protocol.md#execution-result): undefined -> none; objects -> {"json"} (BigInt
 *     as "123n"; a cycle is an error); strings -> {"text": "'...'"} with \ and ' escaped;
 *     BigInt -> "123n"; anything else -> String(v);
 *   - errors: {"name", "message", "traceback": the stack's lines} (thrown non-errors: name
 *     "Error", the value as message);
 *   - import declarations and top-level await: code that does not compile as a script but
 *     mentions `import` or `await`, or that has `await (` or `await [` while no global is named
 *     await, is given to the rewrite of /stdlib/rewrite.js (acorn, run inside this same
 *     sandbox). It turns the imports of built-in modules into `var` bindings from
 *     __sandbox_import (prelude.js), hoists the declarations of code with a top-level await to
 *     globals and runs the rest in an async function whose promise is the result
 *     (docs/languages.md#javascript); code with neither is never rewritten;
 *   - TypeScript: code that does not compile as JavaScript is given to sucrase (bundled in
 *     /stdlib/typescript.js, run inside this same sandbox), which strips the types; the
 *     stripped code runs when it compiles (after the top-level await rewrite if it needs it).
 *     Valid JavaScript is never reinterpreted;
 *   - console.log/info/debug -> stdout, console.warn/error -> stderr; process.env is the
 *     request's environment, frozen; fs and process.cwd()/chdir() work on the WASI filesystem;
 *     require() and import() return the built-in modules fs and path
 *     (docs/languages.md#javascript-built-in-modules);
 *     the cwd is set from the request before the code runs and reported after it.
 * Limits: the JS heap is capped below the module's memory cap, so running out of memory is a
 * catchable InternalError rather than a failed malloc deep inside the engine; the JS stack is
 * capped well inside the shadow stack, so deep recursion is a catchable RangeError ("Maximum
 * call stack size exceeded", as in node).
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

#include "fs_natives.h"
#include "prelude.h" /* generated from prelude.js: kPrelude */
#include "quickjs.h"
#include "sandbox_guest.h"

enum {
  kHeapLimit = 48 << 20,      /* of the 64 MiB module cap; the rest is stack, data, headroom */
  kMaxStackSize = 256 << 10,  /* of the 1 MiB shadow stack */
  kResultReserve = 1 << 16,
};

static const char kTypescriptPath[] = "/stdlib/typescript.js";
static const char kRewritePath[] = "/stdlib/rewrite.js";
static const char kFileName[] = "input";

static JSRuntime* g_rt;
static JSContext* g_ctx;
/* The prelude's hooks (prelude.js), never reachable from guest code. */
static JSValue g_begin, g_finish, g_map_error, g_set_env, g_module_source;
/* sucrase's strip function once /stdlib/typescript.js was loaded, the import and top-level
 * await rewrite once /stdlib/rewrite.js was (JS_UNDEFINED before). */
static JSValue g_strip_typescript, g_rewrite;
static uint64_t g_random_state;
/* Set when an allocation of the JS heap failed during the current eval (see js_alloc_*). */
static int g_alloc_failed;

/* ---- the JS heap allocator: malloc, capped at kHeapLimit, with a record of failures ----
 * QuickJS-ng takes its memory from this allocator (small objects in arena pages it carves
 * itself). The cap is kept here rather than by JS_SetMemoryLimit so that every refusal is seen:
 * when the heap is completely full, QuickJS cannot even allocate the "out of memory" error and
 * throws null instead; g_alloc_failed lets the driver report that null as what it is. */

enum { kMallocOverhead = 8 };

/* Bytes the allocator has handed out (with malloc's overhead); part of the snapshot like any
 * other global, so it stays true across restores. */
static size_t g_heap_size;

static int heap_would_exceed(size_t more) {
  return more > kHeapLimit || g_heap_size + more > kHeapLimit;
}

static void* heap_account(void* p) {
  if (!p) {
    g_alloc_failed = 1;
    return NULL;
  }
  g_heap_size += malloc_usable_size(p) + kMallocOverhead;
  return p;
}

static void* js_alloc_calloc(void* opaque, size_t count, size_t size) {
  (void)opaque;
  if (size != 0 && count > SIZE_MAX / size) return heap_account(NULL);
  if (heap_would_exceed(count * size)) return heap_account(NULL);
  return heap_account(calloc(count, size));
}

static void* js_alloc_malloc(void* opaque, size_t size) {
  (void)opaque;
  if (heap_would_exceed(size)) return heap_account(NULL);
  return heap_account(malloc(size));
}

static void js_alloc_free(void* opaque, void* p) {
  (void)opaque;
  if (!p) return;
  g_heap_size -= malloc_usable_size(p) + kMallocOverhead;
  free(p);
}

static void* js_alloc_realloc(void* opaque, void* p, size_t size) {
  if (!p) return size ? js_alloc_malloc(opaque, size) : NULL;
  if (size == 0) {
    js_alloc_free(opaque, p);
    return NULL;
  }
  size_t old_size = malloc_usable_size(p);
  if (size > old_size && heap_would_exceed(size - old_size)) return heap_account(NULL);
  void* q = realloc(p, size);
  if (!q) return heap_account(NULL);
  g_heap_size = g_heap_size - old_size + malloc_usable_size(q);
  return q;
}

static size_t js_alloc_usable_size(const void* p) { return malloc_usable_size((void*)p); }

static const JSMallocFunctions kAllocator = {js_alloc_calloc, js_alloc_malloc, js_alloc_free,
                                             js_alloc_realloc, js_alloc_usable_size};

/* ---- natives for the prelude ---- */

static JSValue native_write(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  int fd;
  if (JS_ToInt32(ctx, &fd, argv[0]) < 0) return JS_EXCEPTION;
  size_t len;
  const char* s = JS_ToCStringLen(ctx, &len, argv[1]);
  if (!s) return JS_EXCEPTION;
  fwrite(s, 1, len, fd == 2 ? stderr : stdout);
  JS_FreeCString(ctx, s);
  return JS_UNDEFINED;
}

/* Math.random: xorshift64* over a state seeded from WASI random_get at session_init and again
 * after every restore, so restored copies of one snapshot do not repeat each other. */
static JSValue native_random(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)ctx;
  (void)this_val;
  (void)argc;
  (void)argv;
  uint64_t x = g_random_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  g_random_state = x;
  uint64_t bits = (x * 0x2545F4914F6CDD1DULL) >> 11; /* 53 random bits */
  return JS_NewFloat64(ctx, (double)bits / 9007199254740992.0);
}

static int seed_random(void) {
  uint64_t seed = 0;
  if (__wasi_random_get((uint8_t*)&seed, sizeof seed) != 0) return -1;
  g_random_state = seed ? seed : 0x9E3779B97F4A7C15ULL;
  return 0;
}

/* ---- dynamic import() of the built-in modules ----
 * QuickJS asks the module loader for a module that `import('fs')` names; the prelude's
 * moduleSource hook writes the source of a module that re-exports the built-in's namespace, or
 * throws Node's error for a module that is not built in (the import's promise rejects with it).
 * Names are taken as they are: there are no files to resolve them against. */

static char* normalize_module_name(JSContext* ctx, const char* base, const char* name,
                                   void* opaque) {
  (void)base;
  (void)opaque;
  return js_strdup(ctx, name);
}

static JSModuleDef* load_module(JSContext* ctx, const char* name, void* opaque) {
  (void)opaque;
  JSValue id = JS_NewString(ctx, name);
  if (JS_IsException(id)) return NULL;
  JSValue source = JS_Call(ctx, g_module_source, JS_UNDEFINED, 1, (JSValueConst*)&id);
  JS_FreeValue(ctx, id);
  if (JS_IsException(source)) return NULL;
  size_t len;
  const char* s = JS_ToCStringLen(ctx, &len, source);
  JS_FreeValue(ctx, source);
  if (!s) return NULL;
  JSValue module = JS_Eval(ctx, s, len, name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
  JS_FreeCString(ctx, s);
  if (JS_IsException(module)) return NULL;
  JSModuleDef* def = JS_VALUE_GET_PTR(module);
  JS_FreeValue(ctx, module);
  return def;
}

/* ---- helpers ---- */

/* Appends the JSON of the pending exception, mapped by the prelude; clears the exception. */
static void append_exception(JSContext* ctx, sbx_buf* b) {
  JSValue exc = JS_GetException(ctx);
  if (JS_IsNull(exc) && g_alloc_failed) {
    sbx_buf_puts(b, "{\"name\":\"InternalError\",\"message\":\"out of memory\",\"traceback\":[]}");
    return;
  }
  JSValue json = JS_Call(ctx, g_map_error, JS_UNDEFINED, 1, (JSValueConst*)&exc);
  JS_FreeValue(ctx, exc);
  size_t len;
  const char* s = JS_IsException(json) ? NULL : JS_ToCStringLen(ctx, &len, json);
  if (s) {
    sbx_buf_append(b, s, len);
    JS_FreeCString(ctx, s);
  } else {
    /* Formatting the error failed too (typically: no memory left for it). */
    JS_FreeValue(ctx, JS_GetException(ctx));
    sbx_buf_puts(b, "{\"name\":\"InternalError\",\"message\":\"the error could not be formatted "
                    "(out of memory?)\",\"traceback\":[]}");
  }
  JS_FreeValue(ctx, json);
}

static int exception_is_syntax_error(JSContext* ctx, JSValueConst exc) {
  if (!JS_IsError(exc)) return 0;
  JSValue name = JS_GetPropertyStr(ctx, exc, "name");
  const char* s = JS_ToCString(ctx, name);
  int is_syntax = s && strcmp(s, "SyntaxError") == 0;
  if (s) JS_FreeCString(ctx, s);
  JS_FreeValue(ctx, name);
  if (!s) JS_FreeValue(ctx, JS_GetException(ctx));
  return is_syntax;
}

/* Loads the stdlib script at `path` on first use and takes the function it leaves in the global
 * `name` into *slot. Returns 0 when *slot is usable. */
static int load_stdlib_function(JSContext* ctx, const char* path, const char* name,
                                JSValue* slot) {
  if (!JS_IsUndefined(*slot)) return 0;
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  sbx_buf src = {0};
  char chunk[16384];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) sbx_buf_append(&src, chunk, n);
  fclose(f);
  if (src.failed || !src.data) {
    free(src.data);
    return -1;
  }
  JSValue r = JS_Eval(ctx, src.data, src.len, path, JS_EVAL_TYPE_GLOBAL);
  free(src.data);
  if (JS_IsException(r)) {
    JS_FreeValue(ctx, JS_GetException(ctx));
    return -1;
  }
  JS_FreeValue(ctx, r);
  JSValue global = JS_GetGlobalObject(ctx);
  JSAtom key = JS_NewAtom(ctx, name);
  JSValue fn = JS_GetProperty(ctx, global, key);
  JS_DeleteProperty(ctx, global, key, 0);
  JS_FreeAtom(ctx, key);
  JS_FreeValue(ctx, global);
  if (!JS_IsFunction(ctx, fn)) {
    JS_FreeValue(ctx, fn);
    return -1;
  }
  *slot = fn;
  return 0;
}

/* Calls a stdlib function on the code; returns its string result as a malloc'ed NUL-terminated
 * copy, or NULL when the function is unavailable, throws or returns no string. */
static char* transform_code(JSContext* ctx, JSValueConst fn, const char* code, size_t len,
                            size_t* out_len) {
  JSValue arg = JS_NewStringLen(ctx, code, len);
  JSValue r = JS_Call(ctx, fn, JS_UNDEFINED, 1, (JSValueConst*)&arg);
  JS_FreeValue(ctx, arg);
  if (JS_IsException(r)) {
    JS_FreeValue(ctx, JS_GetException(ctx));
    return NULL;
  }
  if (!JS_IsString(r)) {
    JS_FreeValue(ctx, r);
    return NULL;
  }
  size_t n;
  const char* s = JS_ToCStringLen(ctx, &n, r);
  JS_FreeValue(ctx, r);
  if (!s) {
    JS_FreeValue(ctx, JS_GetException(ctx));
    return NULL;
  }
  char* copy = sbx_strndup(s, n);
  JS_FreeCString(ctx, s);
  *out_len = n;
  return copy;
}

/* Strips TypeScript syntax; NULL when sucrase is unavailable or rejects the code. */
static char* strip_typescript(JSContext* ctx, const char* code, size_t len, size_t* out_len) {
  if (load_stdlib_function(ctx, kTypescriptPath, "__sandbox_typescript_strip",
                           &g_strip_typescript) != 0) {
    return NULL;
  }
  return transform_code(ctx, g_strip_typescript, code, len, out_len);
}

/* Rewrites code with import declarations or a top-level await (see the top of this file); NULL
 * when it has neither, does not parse, or the rewrite is unavailable. */
static char* rewrite_script(JSContext* ctx, const char* code, size_t len, size_t* out_len) {
  if (!memmem(code, len, "await", 5) && !memmem(code, len, "import", 6)) return NULL;
  if (load_stdlib_function(ctx, kRewritePath, "__sandbox_rewrite", &g_rewrite) != 0) {
    return NULL;
  }
  return transform_code(ctx, g_rewrite, code, len, out_len);
}

static int is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || (unsigned char)c >= 0x80;
}

/* Whether code that compiled as a script may still hold a top-level await: `await (x)` and
 * `await [x]` compile as a call or an index of a variable named await. Only when the global
 * object has no such variable: then the script would fail with a ReferenceError anyway. */
static int may_await_in_parentheses(JSContext* ctx, const char* code, size_t len) {
  int found = 0;
  for (const char* p = code; !found && (p = memmem(p, len - (size_t)(p - code), "await", 5));
       p += 5) {
    if (p > code && (is_identifier_char(p[-1]) || p[-1] == '.')) continue;
    const char* q = p + 5;
    while (q < code + len && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
    found = q < code + len && (*q == '(' || *q == '[');
  }
  if (!found) return 0;
  JSValue global = JS_GetGlobalObject(ctx);
  JSAtom key = JS_NewAtom(ctx, "await");
  int defined = JS_HasProperty(ctx, global, key);
  JS_FreeAtom(ctx, key);
  JS_FreeValue(ctx, global);
  return defined == 0;
}

/* Compiles NUL-terminated code as a global script, rewritten when it has import declarations
 * or a top-level await: code that fails to compile only because of them, or that compiles only
 * because `await (x)` reads as a call. Returns the compiled function or JS_EXCEPTION with the
 * error pending: the rewritten code's own error when it was rewritten, else the original one. */
static JSValue compile_script(JSContext* ctx, const char* code, size_t len) {
  const int flags = JS_EVAL_TYPE_GLOBAL | JS_EVAL_FLAG_COMPILE_ONLY;
  JSValue fn = JS_Eval(ctx, code, len, kFileName, flags);
  if (!JS_IsException(fn)) {
    if (!may_await_in_parentheses(ctx, code, len)) return fn;
    size_t rewritten_len;
    char* rewritten = rewrite_script(ctx, code, len, &rewritten_len);
    if (!rewritten) return fn; /* not a top-level await: the script as it compiled */
    JSValue rewritten_fn = JS_Eval(ctx, rewritten, rewritten_len, kFileName, flags);
    free(rewritten);
    if (JS_IsException(rewritten_fn)) {
      JS_FreeValue(ctx, JS_GetException(ctx));
      return fn; /* the script as it compiled, as before the rewrite existed */
    }
    JS_FreeValue(ctx, fn);
    return rewritten_fn;
  }
  JSValue exc = JS_GetException(ctx);
  if (!exception_is_syntax_error(ctx, exc)) return JS_Throw(ctx, exc);
  size_t rewritten_len;
  char* rewritten = rewrite_script(ctx, code, len, &rewritten_len);
  if (!rewritten) return JS_Throw(ctx, exc);
  JS_FreeValue(ctx, exc);
  fn = JS_Eval(ctx, rewritten, rewritten_len, kFileName, flags);
  free(rewritten);
  return fn;
}

/* Compiles the code as a global script (JavaScript first, then stripped TypeScript). Returns the
 * compiled function or JS_EXCEPTION with the exception to report pending. */
static JSValue compile(JSContext* ctx, const char* code, size_t len) {
  JSValue fn = compile_script(ctx, code, len);
  if (!JS_IsException(fn)) return fn;
  JSValue exc = JS_GetException(ctx);
  if (!exception_is_syntax_error(ctx, exc)) return JS_Throw(ctx, exc);
  size_t stripped_len;
  char* stripped = strip_typescript(ctx, code, len, &stripped_len);
  if (!stripped) return JS_Throw(ctx, exc); /* not TypeScript either: the original error */
  fn = compile_script(ctx, stripped, stripped_len);
  free(stripped);
  if (JS_IsException(fn)) {
    JS_FreeValue(ctx, exc); /* the stripped code's own error is the more precise one */
    return fn;
  }
  JS_FreeValue(ctx, exc);
  return fn;
}

static void drain_jobs(void) {
  for (;;) {
    JSContext* job_ctx;
    int r = JS_ExecutePendingJob(g_rt, &job_ctx);
    if (r == 0) break;
    if (r < 0) {
      /* Promise reactions catch their own errors; what gets here is an engine-level failure
       * (out of memory). Report it and keep draining. */
      JSValue exc = JS_GetException(job_ctx);
      const char* s = JS_ToCString(job_ctx, exc);
      fprintf(stderr, "Uncaught error in a promise job: %s\n", s ? s : "(unprintable)");
      if (s) JS_FreeCString(job_ctx, s);
      JS_FreeValue(job_ctx, exc);
    }
  }
}

/* Hands the request's environment to the prelude (process.env). Returns -1 with an exception
 * pending when that fails. */
static int set_environment(JSContext* ctx, const sbx_request* r) {
  JSValue pairs = JS_NewArray(ctx);
  if (JS_IsException(pairs)) return -1;
  uint32_t n = 0;
  for (size_t i = 0; i < r->env_count; i++) {
    const char* eq = memchr(r->env[i], '=', r->env_len[i]);
    if (!eq) continue;
    size_t name_len = (size_t)(eq - r->env[i]);
    JS_SetPropertyUint32(ctx, pairs, n++, JS_NewStringLen(ctx, r->env[i], name_len));
    JS_SetPropertyUint32(ctx, pairs, n++, JS_NewStringLen(ctx, eq + 1, r->env_len[i] - name_len - 1));
  }
  JSValue rv = JS_Call(ctx, g_set_env, JS_UNDEFINED, 1, (JSValueConst*)&pairs);
  JS_FreeValue(ctx, pairs);
  if (JS_IsException(rv)) return -1;
  JS_FreeValue(ctx, rv);
  return 0;
}

static void append_cwd(sbx_buf* b) {
  char cwd[1024];
  if (getcwd(cwd, sizeof cwd) == NULL) return;
  sbx_buf_puts(b, ",\"cwd\":");
  sbx_buf_json_string(b, cwd, strlen(cwd));
}

/* Runs the code; on success leaves the results JSON (an array) in `results` and returns 0,
 * else returns -1 with the exception pending. */
static int run(JSContext* ctx, const sbx_request* r, sbx_buf* results) {
  if (set_environment(ctx, r) != 0) return -1;
  char* code = sbx_strndup(r->code, r->code_len); /* the parser needs a NUL terminator */
  if (!code) {
    JS_ThrowOutOfMemory(ctx);
    return -1;
  }
  JSValue fn = compile(ctx, code, r->code_len);
  free(code);
  if (JS_IsException(fn)) return -1;
  JSValue value = JS_EvalFunction(ctx, fn);
  if (JS_IsException(value)) return -1;
  JSValue record = JS_Call(ctx, g_begin, JS_UNDEFINED, 1, (JSValueConst*)&value);
  JS_FreeValue(ctx, value);
  if (JS_IsException(record)) return -1;
  drain_jobs();
  JSValue json = JS_Call(ctx, g_finish, JS_UNDEFINED, 1, (JSValueConst*)&record);
  JS_FreeValue(ctx, record);
  if (JS_IsException(json)) return -1;
  size_t len;
  const char* s = JS_ToCStringLen(ctx, &len, json);
  JS_FreeValue(ctx, json);
  if (!s) return -1;
  sbx_buf_append(results, s, len);
  JS_FreeCString(ctx, s);
  return 0;
}

/* ---- the ABI ---- */

static JSValue take_hook(JSContext* ctx, JSValueConst hooks, const char* name) {
  return JS_GetPropertyStr(ctx, hooks, name);
}

SANDBOX_EXPORT("session_init") int session_init(void) {
  if (g_ctx) {
    sbx_result_message("");
    return SANDBOX_OK;
  }
  if (!sbx_buf_reserve(&sbx_result, kResultReserve) || seed_random() != 0) {
    return SANDBOX_INTERNAL_ERROR;
  }
  sbx_buffer_stdio();
  JSRuntime* rt = JS_NewRuntime2(&kAllocator, NULL);
  if (!rt) {
    sbx_result_message("cannot create the QuickJS runtime");
    return SANDBOX_INTERNAL_ERROR;
  }
  JS_SetMaxStackSize(rt, kMaxStackSize);
  JSContext* ctx = JS_NewContext(rt);
  if (!ctx) {
    JS_FreeRuntime(rt);
    sbx_result_message("cannot create the QuickJS context");
    return SANDBOX_INTERNAL_ERROR;
  }
  g_strip_typescript = JS_UNDEFINED;
  g_rewrite = JS_UNDEFINED;

  JSValue global = JS_GetGlobalObject(ctx);
  JSValue math = JS_GetPropertyStr(ctx, global, "Math");
  JS_SetPropertyStr(ctx, math, "random", JS_NewCFunction(ctx, native_random, "random", 0));
  JS_FreeValue(ctx, math);
  JS_FreeValue(ctx, global);

  JSValue setup = JS_Eval(ctx, kPrelude, kPrelude_size, "prelude.js", JS_EVAL_TYPE_GLOBAL);
  JSValue natives = JS_NewObject(ctx);
  JS_SetPropertyStr(ctx, natives, "write", JS_NewCFunction(ctx, native_write, "write", 2));
  sbx_js_add_fs_natives(ctx, natives);
  JSValue hooks = JS_IsException(setup)
                      ? JS_EXCEPTION
                      : JS_Call(ctx, setup, JS_UNDEFINED, 1, (JSValueConst*)&natives);
  JS_FreeValue(ctx, natives);
  JS_FreeValue(ctx, setup);
  if (JS_IsException(hooks)) {
    JSValue exc = JS_GetException(ctx);
    const char* s = JS_ToCString(ctx, exc);
    sbx_result_message("the prelude failed: ");
    sbx_buf_puts(&sbx_result, s ? s : "(unprintable)");
    if (s) JS_FreeCString(ctx, s);
    JS_FreeValue(ctx, exc);
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
    return SANDBOX_INTERNAL_ERROR;
  }
  g_begin = take_hook(ctx, hooks, "begin");
  g_finish = take_hook(ctx, hooks, "finish");
  g_map_error = take_hook(ctx, hooks, "mapError");
  g_set_env = take_hook(ctx, hooks, "setEnv");
  g_module_source = take_hook(ctx, hooks, "moduleSource");
  JS_FreeValue(ctx, hooks);
  JS_SetModuleLoaderFunc(rt, normalize_module_name, load_module, NULL);
  g_rt = rt;
  g_ctx = ctx;
  fflush(stdout);
  fflush(stderr);
  sbx_result_message("");
  return SANDBOX_OK;
}

SANDBOX_EXPORT("eval") int eval(const char* data, size_t len) {
  if (!g_ctx) {
    sbx_result_message("eval called before session_init");
    return SANDBOX_INTERNAL_ERROR;
  }
  sbx_request request;
  if (sbx_parse_request(data, len, &request) != 0) {
    sbx_result_message("malformed request");
    return SANDBOX_INTERNAL_ERROR;
  }
  if (request.cwd) {
    char* cwd = sbx_strndup(request.cwd, request.cwd_len);
    if (!cwd || chdir(cwd) != 0) chdir("/workspace");
    free(cwd);
  }
  JSContext* ctx = g_ctx;
  g_alloc_failed = 0;
  /* The host may call from a different depth than session_init did. */
  JS_UpdateStackTop(g_rt);

  sbx_buf results = {0};
  int ok = run(ctx, &request, &results) == 0 && !results.failed;
  sbx_buf_clear(&sbx_result);
  int rc;
  if (ok) {
    sbx_buf_puts(&sbx_result, "{\"results\":");
    sbx_buf_append(&sbx_result, results.data, results.len);
    rc = SANDBOX_OK;
  } else {
    if (results.failed) JS_ThrowOutOfMemory(ctx);
    sbx_buf_puts(&sbx_result, "{\"results\":[],\"error\":");
    append_exception(ctx, &sbx_result);
    rc = SANDBOX_LANGUAGE_ERROR;
  }
  free(results.data);
  /* Jobs queued by code that then threw still run, as they would in an event loop. */
  drain_jobs();
  append_cwd(&sbx_result);
  sbx_buf_puts(&sbx_result, "}");
  fflush(stdout);
  fflush(stderr);
  if (sbx_result.failed) {
    sbx_result_message("out of memory while writing the response");
    return SANDBOX_INTERNAL_ERROR;
  }
  return rc;
}

SANDBOX_EXPORT("after_restore") void after_restore(void) { seed_random(); }
