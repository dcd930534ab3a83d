/* The `wkv` test guest: a tiny line-oriented interpreter behind a wasmify-shaped API
 * (docs/wasmify-abi.md), written by hand the way goccy's wasmify generates the bridge for a C
 * embedding header. It exists to exercise the kit's wasmify host end to end, not to be useful.
 *
 * The embedding header it stands for, and so its method ids (alphabetical order):
 *
 *   w_0_0  void        wkv_close(wkv* h)
 *   w_0_1  const char* wkv_eval(wkv* h, const char* src)  the binary record below
 *   w_0_2  wkv*        wkv_new(const char* stdlib_dir)    0 unless stdlib_dir is "/stdlib"
 *   w_0_3  const char* wkv_raw(wkv* h, int mode)          a malformed response, for the tests
 *
 * Every w_0_N traps unless wasm_init ran first (a restored instance has it in memory).
 *
 * wkv_eval's answer (field 1), little-endian, str = u32 length + bytes:
 *   u8 status: 0 ok, then str value; 1 error, then str message
 *   then str stdout, str stderr (what `print` and `warn` collected during the call)
 *
 * The language: one command per line; blank lines and lines starting with '#' are skipped;
 * the first failing command stops the script. A script's value is that of the last command
 * that has one.
 *
 *   set NAME VALUE    global NAME = VALUE (the rest of the line); globals persist
 *   get NAME          value: NAME; NameError when unset
 *   incr NAME         NAME = NAME + 1 (unset counts as 0); value: the new number
 *   print TEXT        TEXT and a newline on the call's stdout (returned in the answer)
 *   warn TEXT         TEXT and a newline on the call's stderr (returned in the answer)
 *   echo TEXT         TEXT and a newline written to fd 1 through WASI
 *   fail NAME MSG     error NAME: MSG
 *   value TEXT        value: TEXT
 *   json TEXT         value: TEXT, reported by `run` as a JSON result (TEXT must be JSON)
 *   big N             value: N bytes of 'x'
 *   spin              loops forever (until the host stops it)
 *   alloc MB          allocates and touches MB MiB, kept
 *   open PATH / close opens PATH and leaves it open / closes what open left open
 *   write PATH TEXT   writes TEXT to PATH;  read PATH: value the file's content
 *   cd PATH           chdir;  env NAME: value getenv(NAME) ("" when unset)
 *   exit N            exit(N)
 *   reseed / random   seeds the generator from random_get / value: its next number
 *   helper            defines `run` (the session boot script)
 *   run C W E         (after `helper`) runs the script C in directory W with the environment
 *                     E ("NAME=VALUE\0"...), each written `x` + hex, and makes its value our JSON
 *                     envelope {"results": [...], "error"?: {...}, "cwd": getcwd()}: the
 *                     script's own errors go into the envelope, not into the answer's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXPORT(name) __attribute__((export_name(name)))

/* ---- buffers ---- */

typedef struct {
  char* data;
  size_t len;
  size_t cap;
} buf;

static void buf_reserve(buf* b, size_t more) {
  if (b->len + more <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + more) cap *= 2;
  char* data = realloc(b->data, cap);
  if (!data) __builtin_trap();
  b->data = data;
  b->cap = cap;
}

static void buf_add(buf* b, const void* p, size_t n) {
  buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
}

static void buf_str(buf* b, const char* s) { buf_add(b, s, strlen(s)); }
static void buf_byte(buf* b, uint8_t c) { buf_add(b, &c, 1); }

static void buf_u32(buf* b, uint32_t v) {
  uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  buf_add(b, le, 4);
}

static void buf_varint(buf* b, uint64_t v) {
  while (v >= 0x80) {
    buf_byte(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  buf_byte(b, (uint8_t)v);
}

static void buf_json_string(buf* b, const char* s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  buf_byte(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      buf_byte(b, '\\');
      buf_byte(b, c);
    } else if (c < 0x20) {
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      buf_add(b, esc, 6);
    } else {
      buf_byte(b, c);
    }
  }
  buf_byte(b, '"');
}

/* ---- the interpreter ---- */

typedef struct var {
  char* name;
  char* value;
  struct var* next;
} var;

typedef struct {
  uint32_t magic;
  var* vars;
  int helper; /* `run` is defined */
  buf out, err;
  int open_fds[64];
  int open_count;
} wkv;

#define WKV_MAGIC 0x776b7621u

typedef struct {
  int failed;
  char* error_name;
  char* error_message;
  buf value;
  int has_value;
  int value_is_json;
} outcome;

static int bridge_ready;
static void* kept_blocks; /* `alloc` keeps its memory here */

static char* dup_n(const char* s, size_t n) {
  char* d = malloc(n + 1);
  if (!d) __builtin_trap();
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

static void fail(outcome* o, const char* name, const char* message) {
  o->failed = 1;
  o->error_name = dup_n(name, strlen(name));
  o->error_message = dup_n(message, strlen(message));
}

static void set_value(outcome* o, const char* s, size_t n, int json) {
  o->value.len = 0;
  buf_add(&o->value, s, n);
  o->has_value = 1;
  o->value_is_json = json;
}

static var* find_var(wkv* h, const char* name) {
  for (var* v = h->vars; v; v = v->next) {
    if (!strcmp(v->name, name)) return v;
  }
  return NULL;
}

static void set_var(wkv* h, const char* name, const char* value) {
  var* v = find_var(h, name);
  if (!v) {
    v = calloc(1, sizeof *v);
    if (!v) __builtin_trap();
    v->name = dup_n(name, strlen(name));
    v->next = h->vars;
    h->vars = v;
  } else {
    free(v->value);
  }
  v->value = dup_n(value, strlen(value));
}

/* The first word of `*line` (NUL-terminated in place), `*line` advanced past the spaces after. */
static char* word(char** line) {
  char* start = *line;
  char* p = start;
  while (*p && *p != ' ') p++;
  if (*p) *p++ = 0;
  while (*p == ' ') p++;
  *line = p;
  return start;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes `x<hex>` into a new NUL-terminated buffer (length in *n); NULL when it is not that
 * (the `x` keeps an empty argument a word). */
static char* unhex(const char* s, size_t* n) {
  if (*s++ != 'x') return NULL;
  size_t len = strlen(s);
  if (len % 2) return NULL;
  char* d = malloc(len / 2 + 1);
  if (!d) __builtin_trap();
  for (size_t i = 0; i < len / 2; i++) {
    int hi = hex_value(s[2 * i]), lo = hex_value(s[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(d);
      return NULL;
    }
    d[i] = (char)(hi * 16 + lo);
  }
  d[len / 2] = 0;
  *n = len / 2;
  return d;
}

static void run_script(wkv* h, const char* src, size_t len, outcome* o);

/* `run C W E`: the session helper. */
static void run_helper(wkv* h, char* args, outcome* o) {
  char* code_hex = word(&args);
  char* cwd_hex = word(&args);
  char* env_hex = word(&args);
  size_t code_len, cwd_len, env_len;
  char* code = unhex(code_hex, &code_len);
  char* cwd = unhex(cwd_hex, &cwd_len);
  char* env = unhex(env_hex, &env_len);
  if (!code || !cwd || !env) {
    fail(o, "HelperError", "run: arguments are not hex");
    return;
  }
  clearenv();
  for (size_t i = 0; i < env_len;) {
    char* entry = env + i;
    size_t n = strlen(entry);
    char* eq = strchr(entry, '=');
    if (eq) {
      *eq = 0;
      setenv(entry, eq + 1, 1);
    }
    i += n + 1;
  }
  if (cwd_len) (void)chdir(cwd);
  outcome inner = {0};
  run_script(h, code, code_len, &inner);
  buf env_json = {0};
  buf_str(&env_json, "{\"results\":[");
  if (!inner.failed && inner.has_value) {
    buf_str(&env_json, inner.value_is_json ? "{\"json\":" : "{\"text\":");
    if (inner.value_is_json) {
      buf_add(&env_json, inner.value.data, inner.value.len);
    } else {
      buf_json_string(&env_json, inner.value.data, inner.value.len);
    }
    buf_str(&env_json, "}");
  }
  buf_str(&env_json, "]");
  if (inner.failed) {
    buf_str(&env_json, ",\"error\":{\"name\":");
    buf_json_string(&env_json, inner.error_name, strlen(inner.error_name));
    buf_str(&env_json, ",\"message\":");
    buf_json_string(&env_json, inner.error_message, strlen(inner.error_message));
    buf_str(&env_json, ",\"traceback\":[]}");
  }
  char dir[1024];
  if (getcwd(dir, sizeof dir)) {
    buf_str(&env_json, ",\"cwd\":");
    buf_json_string(&env_json, dir, strlen(dir));
  }
  buf_str(&env_json, "}");
  set_value(o, env_json.data, env_json.len, 0);
  free(env_json.data);
  free(inner.value.data);
  free(code);
  free(cwd);
  free(env);
}

static void run_command(wkv* h, char* line, outcome* o) {
  char* cmd = word(&line);
  char* rest = line;
  char message[512];
  if (!strcmp(cmd, "set")) {
    char* name = word(&rest);
    set_var(h, name, rest);
  } else if (!strcmp(cmd, "get")) {
    var* v = find_var(h, rest);
    if (!v) {
      snprintf(message, sizeof message, "%s is not defined", rest);
      fail(o, "NameError", message);
      return;
    }
    set_value(o, v->value, strlen(v->value), 0);
  } else if (!strcmp(cmd, "incr")) {
    var* v = find_var(h, rest);
    char number[32];
    snprintf(number, sizeof number, "%lld", (v ? atoll(v->value) : 0) + 1);
    set_var(h, rest, number);
    set_value(o, number, strlen(number), 0);
  } else if (!strcmp(cmd, "print")) {
    buf_str(&h->out, rest);
    buf_byte(&h->out, '\n');
  } else if (!strcmp(cmd, "warn")) {
    buf_str(&h->err, rest);
    buf_byte(&h->err, '\n');
  } else if (!strcmp(cmd, "echo")) {
    printf("%s\n", rest);
    fflush(stdout);
  } else if (!strcmp(cmd, "fail")) {
    char* name = word(&rest);
    fail(o, name, rest);
  } else if (!strcmp(cmd, "value")) {
    set_value(o, rest, strlen(rest), 0);
  } else if (!strcmp(cmd, "json")) {
    set_value(o, rest, strlen(rest), 1);
  } else if (!strcmp(cmd, "big")) {
    size_t n = (size_t)atoll(rest);
    o->value.len = 0;
    buf_reserve(&o->value, n);
    memset(o->value.data, 'x', n);
    o->value.len = n;
    o->has_value = 1;
    o->value_is_json = 0;
  } else if (!strcmp(cmd, "spin")) {
    for (volatile uint64_t i = 0;; i++) {
    }
  } else if (!strcmp(cmd, "alloc")) {
    size_t bytes = (size_t)atoll(rest) << 20;
    void** block = malloc(bytes + sizeof(void*));
    if (!block) {
      fail(o, "MemoryError", "out of memory");
      return;
    }
    memset(block, 1, bytes + sizeof(void*));
    *block = kept_blocks;
    kept_blocks = block;
  } else if (!strcmp(cmd, "open")) {
    int fd = open(rest, O_RDONLY);
    if (fd < 0 || h->open_count == 64) {
      snprintf(message, sizeof message, "%s: %s", rest, strerror(errno));
      fail(o, "OSError", message);
      return;
    }
    h->open_fds[h->open_count++] = fd;
  } else if (!strcmp(cmd, "close")) {
    while (h->open_count > 0) close(h->open_fds[--h->open_count]);
  } else if (!strcmp(cmd, "write")) {
    char* path = word(&rest);
    FILE* f = fopen(path, "w");
    if (!f || fputs(rest, f) < 0 || fclose(f) != 0) {
      snprintf(message, sizeof message, "%s: %s", path, strerror(errno));
      fail(o, "OSError", message);
      return;
    }
  } else if (!strcmp(cmd, "read")) {
    FILE* f = fopen(rest, "r");
    if (!f) {
      snprintf(message, sizeof message, "%s: %s", rest, strerror(errno));
      fail(o, "OSError", message);
      return;
    }
    buf content = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_add(&content, chunk, n);
    fclose(f);
    set_value(o, content.data ? content.data : "", content.len, 0);
    free(content.data);
  } else if (!strcmp(cmd, "cd")) {
    if (chdir(rest) != 0) {
      snprintf(message, sizeof message, "%s: %s", rest, strerror(errno));
      fail(o, "OSError", message);
      return;
    }
  } else if (!strcmp(cmd, "env")) {
    const char* v = getenv(rest);
    set_value(o, v ? v : "", v ? strlen(v) : 0, 0);
  } else if (!strcmp(cmd, "exit")) {
    exit(atoi(rest));
  } else if (!strcmp(cmd, "reseed")) {
    unsigned seed = 0;
    if (getentropy(&seed, sizeof seed) != 0) seed = 1;
    srand(seed);
  } else if (!strcmp(cmd, "random")) {
    char number[32];
    snprintf(number, sizeof number, "%d", rand());
    set_value(o, number, strlen(number), 0);
  } else if (!strcmp(cmd, "helper")) {
    h->helper = 1;
  } else if (!strcmp(cmd, "run") && h->helper) {
    run_helper(h, rest, o);
  } else {
    snprintf(message, sizeof message, "unknown command '%s'", cmd);
    fail(o, "SyntaxError", message);
  }
}

static void run_script(wkv* h, const char* src, size_t len, outcome* o) {
  char* copy = dup_n(src, len);
  char* line = copy;
  while (line && !o->failed) {
    char* next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (*line && *line != '#') run_command(h, line, o);
    line = next;
  }
  free(copy);
}

/* ---- the wasmify bridge ---- */

typedef struct {
  uint64_t integer[4];
  const char* bytes[4];
  uint32_t bytes_len[4];
  int present[4];
} request;

static int get_varint(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return -1;
    uint8_t b = *(*p)++;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1;
}

/* Fields 1-3 of a request; anything malformed traps (the host never sends it). */
static request parse_request(const uint8_t* p, uint32_t len) {
  request r;
  memset(&r, 0, sizeof r);
  const uint8_t* end = p + len;
  while (p < end) {
    uint64_t key, value;
    if (get_varint(&p, end, &key) != 0) __builtin_trap();
    uint64_t field = key >> 3;
    if (field == 0 || field > 3) __builtin_trap();
    if ((key & 7) == 0) {
      if (get_varint(&p, end, &value) != 0) __builtin_trap();
      r.integer[field] = value;
    } else if ((key & 7) == 2) {
      if (get_varint(&p, end, &value) != 0 || value > (uint64_t)(end - p)) __builtin_trap();
      r.bytes[field] = (const char*)p;
      r.bytes_len[field] = (uint32_t)value;
      p += value;
    } else {
      __builtin_trap();
    }
    r.present[field] = 1;
  }
  return r;
}

/* The response buffer, packed as the i64 the host expects: pointer << 32 | length. */
static uint64_t respond(buf* b) { return ((uint64_t)(uintptr_t)b->data << 32) | (uint64_t)b->len; }

static uint64_t respond_integer(uint64_t v) {
  buf b = {0};
  buf_varint(&b, 1 << 3 | 0);
  buf_varint(&b, v);
  return respond(&b);
}

static uint64_t respond_bytes(const char* p, size_t n) {
  buf b = {0};
  buf_varint(&b, 1 << 3 | 2);
  buf_varint(&b, n);
  buf_add(&b, p, n);
  return respond(&b);
}

static wkv* handle_of(const request* r) {
  wkv* h = (wkv*)(uintptr_t)r->integer[1];
  if (!r->present[1] || !h || h->magic != WKV_MAGIC) __builtin_trap();
  return h;
}

static void check_bridge(void) {
  if (!bridge_ready) __builtin_trap();
}

EXPORT("wasm_init") void wasm_init(void) { bridge_ready = 1; }

EXPORT("wasm_alloc") void* wasm_alloc(uint32_t len) { return malloc(len ? len : 1); }

EXPORT("wasm_free") void wasm_free(void* p) { free(p); }

/* wkv_close(h) */
EXPORT("w_0_0") uint64_t w_0_0(const uint8_t* p, uint32_t len) {
  check_bridge();
  request r = parse_request(p, len);
  handle_of(&r)->magic = 0;
  return 0;
}

/* wkv_eval(h, src) */
EXPORT("w_0_1") uint64_t w_0_1(const uint8_t* p, uint32_t len) {
  check_bridge();
  request r = parse_request(p, len);
  wkv* h = handle_of(&r);
  h->out.len = 0;
  h->err.len = 0;
  outcome o = {0};
  run_script(h, r.bytes[2] ? r.bytes[2] : "", r.bytes_len[2], &o);
  buf record = {0};
  if (o.failed) {
    buf_byte(&record, 1);
    char message[1024];
    snprintf(message, sizeof message, "%s: %s", o.error_name, o.error_message);
    buf_u32(&record, (uint32_t)strlen(message));
    buf_str(&record, message);
  } else {
    buf_byte(&record, 0);
    buf_u32(&record, (uint32_t)o.value.len);
    buf_add(&record, o.value.data, o.value.len);
  }
  buf_u32(&record, (uint32_t)h->out.len);
  buf_add(&record, h->out.data, h->out.len);
  buf_u32(&record, (uint32_t)h->err.len);
  buf_add(&record, h->err.data, h->err.len);
  uint64_t packed = respond_bytes(record.data, record.len);
  free(record.data);
  free(o.value.data);
  free(o.error_name);
  free(o.error_message);
  return packed;
}

/* wkv_new(stdlib_dir) */
EXPORT("w_0_2") uint64_t w_0_2(const uint8_t* p, uint32_t len) {
  check_bridge();
  request r = parse_request(p, len);
  if (!r.bytes[1] || r.bytes_len[1] != 7 || memcmp(r.bytes[1], "/stdlib", 7) != 0) {
    return respond_integer(0);
  }
  wkv* h = calloc(1, sizeof *h);
  if (!h) __builtin_trap();
  h->magic = WKV_MAGIC;
  return respond_integer((uint64_t)(uintptr_t)h);
}

/* wkv_raw(h, mode): responses the host must refuse. */
EXPORT("w_0_3") uint64_t w_0_3(const uint8_t* p, uint32_t len) {
  check_bridge();
  request r = parse_request(p, len);
  (void)handle_of(&r);
  buf b = {0};
  switch (r.integer[2]) {
    case 0: /* wire type 5 (32-bit): not in the subset */
      buf_add(&b, "\x0d\x01\x02\x03\x04", 5);
      return respond(&b);
    case 1: /* a length past the end */
      buf_add(&b,
              "\x0a\x05"
              "ab",
              4);
      return respond(&b);
    case 2: /* over the 128 KiB limit: 131,073 bytes */
      buf_reserve(&b, 131073);
      memset(b.data, 0, 131073);
      b.len = 131073;
      return respond(&b);
    case 3: /* a pointer outside the memory */
      return ((uint64_t)0xfffffff0u << 32) | 64;
    default: /* an empty response */
      return 0;
  }
}
