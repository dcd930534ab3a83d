/* A guest of the embedded-interpreter ABI (engines/common/sandbox_guest.h) whose "language"
 * lets tests/embedded drive every path of the host: one command per line.
 *
 *   set K V / get K        state that must survive snapshot and restore
 *   print TEXT / eprint TEXT
 *   text TEXT              the result {"text": TEXT}
 *   json RAW               the result {"json": RAW} (RAW inserted verbatim)
 *   big N                  a text result of N 'x'
 *   reply RAW              the whole envelope is RAW (status 0)
 *   status N MSG           return status N with MSG as the whole reply
 *   fail NAME MSG          a language error
 *   cd DIR                 chdir; the envelope reports the new cwd
 *   reportcwd DIR          report DIR as the cwd without changing directory
 *   env NAME               the result is getenv(NAME) (or "<unset>")
 *   open PATH / closeall   keep a file open / close them all
 *   fdof PATH              open PATH, close it; the result is the descriptor it had
 *   closefd N              close(N), any descriptor (stdout, a preopen, ...)
 *   renumber A B           __wasi_fd_renumber(A, B)
 *   spin / trap / exit N   endless loop, `unreachable`, exit(N)
 *   alloc MB               allocate and touch MB MiB (kept); failure is a MemoryError
 *   restores               the number of after_restore calls since session_init
 *   random                 the next number of a generator seeded from random_get by
 *                          session_init and again by after_restore (as real interpreters do)
 *   zerodata / datasum     zero / sum a page-sized initialized array (from a data segment)
 *
 * Built twice: normally, and with -DPROBE_BROKEN_INIT (session_init fails with a message).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

#include "sandbox_guest.h"

extern char** environ;

enum { kMaxVars = 64, kMaxOpen = 64 };

static struct {
  char* name;
  char* value;
} vars[kMaxVars];
static int open_fds[kMaxOpen];
/* One whole page of initialized (non-zero) data: a data segment writes it at instantiation. */
#define DATA_WORDS (65536 / 4)
#define FILL4(x) x, x, x, x
#define FILL16(x) FILL4(x), FILL4(x), FILL4(x), FILL4(x)
#define FILL64(x) FILL16(x), FILL16(x), FILL16(x), FILL16(x)
#define FILL256(x) FILL64(x), FILL64(x), FILL64(x), FILL64(x)
#define FILL1024(x) FILL256(x), FILL256(x), FILL256(x), FILL256(x)
#define FILL4096(x) FILL1024(x), FILL1024(x), FILL1024(x), FILL1024(x)
static unsigned data_words[DATA_WORDS] __attribute__((aligned(65536))) = {
    FILL4096(0x01010101u), FILL4096(0x01010101u), FILL4096(0x01010101u), FILL4096(0x01010101u)};
static int open_count;
static int restore_count;
static unsigned long long rng_state;

static void seed_rng(void) {
  if (__wasi_random_get((uint8_t*)&rng_state, sizeof rng_state) != 0 || rng_state == 0) {
    rng_state = 0x9E3779B97F4A7C15ULL;
  }
}
/* `alloc` keeps its blocks here, so the compiler cannot elide them. */
static char** blocks;
static size_t block_count;
static int initialized;

typedef struct {
  sbx_buf result;  /* the one result entry (JSON), empty for none */
  sbx_buf error;   /* the error object (JSON), empty for none */
  const char* raw; /* `reply`: the whole envelope */
  size_t raw_len;
  int status; /* `status`: a non-standard status */
  char* report_cwd;
} outcome;

static char* dup_n(const char* s, size_t n) { return sbx_strndup(s, n); }

static void set_error(outcome* o, const char* name, const char* msg) {
  sbx_buf_clear(&o->error);
  sbx_buf_puts(&o->error, "{\"name\":");
  sbx_buf_json_string(&o->error, name, strlen(name));
  sbx_buf_puts(&o->error, ",\"message\":");
  sbx_buf_json_string(&o->error, msg, strlen(msg));
  sbx_buf_puts(&o->error, ",\"traceback\":[");
  sbx_buf_json_string(&o->error, msg, strlen(msg));
  sbx_buf_puts(&o->error, "]}");
}

static void set_text(outcome* o, const char* s, size_t n) {
  sbx_buf_clear(&o->result);
  sbx_buf_puts(&o->result, "{\"text\":");
  sbx_buf_json_string(&o->result, s, n);
  sbx_buf_puts(&o->result, "}");
}

/* Runs one command; returns 0 to go on, 1 to stop. */
static int run_line(outcome* o, char* line) {
  char* arg = strchr(line, ' ');
  if (arg)
    *arg++ = 0;
  else
    arg = line + strlen(line);
  if (!strcmp(line, "set")) {
    char* value = strchr(arg, ' ');
    if (!value) {
      set_error(o, "UsageError", "set NAME VALUE");
      return 1;
    }
    *value++ = 0;
    for (int i = 0; i < kMaxVars; i++) {
      if (!vars[i].name || !strcmp(vars[i].name, arg)) {
        if (!vars[i].name) vars[i].name = strdup(arg);
        free(vars[i].value);
        vars[i].value = strdup(value);
        return 0;
      }
    }
    set_error(o, "MemoryError", "too many variables");
    return 1;
  }
  if (!strcmp(line, "get")) {
    for (int i = 0; i < kMaxVars && vars[i].name; i++) {
      if (!strcmp(vars[i].name, arg)) {
        set_text(o, vars[i].value, strlen(vars[i].value));
        return 0;
      }
    }
    set_error(o, "KeyError", arg);
    return 1;
  }
  if (!strcmp(line, "print")) {
    printf("%s\n", arg);
    return 0;
  }
  if (!strcmp(line, "eprint")) {
    fprintf(stderr, "%s\n", arg);
    return 0;
  }
  if (!strcmp(line, "text")) {
    set_text(o, arg, strlen(arg));
    return 0;
  }
  if (!strcmp(line, "json")) {
    sbx_buf_clear(&o->result);
    sbx_buf_puts(&o->result, "{\"json\":");
    sbx_buf_puts(&o->result, arg);
    sbx_buf_puts(&o->result, "}");
    return 0;
  }
  if (!strcmp(line, "big")) {
    size_t n = (size_t)atol(arg);
    char* s = malloc(n + 1);
    if (!s) {
      set_error(o, "MemoryError", "out of memory");
      return 1;
    }
    memset(s, 'x', n);
    set_text(o, s, n);
    free(s);
    return 0;
  }
  if (!strcmp(line, "reply")) {
    o->raw = arg;
    o->raw_len = strlen(arg);
    return 1;
  }
  if (!strcmp(line, "status")) {
    o->status = atoi(arg);
    char* msg = strchr(arg, ' ');
    o->raw = msg ? msg + 1 : "";
    o->raw_len = strlen(o->raw);
    return 1;
  }
  if (!strcmp(line, "fail")) {
    char* msg = strchr(arg, ' ');
    if (msg) *msg++ = 0;
    set_error(o, arg, msg ? msg : "");
    return 1;
  }
  if (!strcmp(line, "cd")) {
    if (chdir(arg) != 0) {
      set_error(o, "OSError", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (!strcmp(line, "reportcwd")) {
    free(o->report_cwd);
    o->report_cwd = strdup(arg);
    return 0;
  }
  if (!strcmp(line, "env")) {
    const char* v = getenv(arg);
    if (!v) v = "<unset>";
    set_text(o, v, strlen(v));
    return 0;
  }
  if (!strcmp(line, "open")) {
    int fd = open(arg, O_RDONLY);
    if (fd < 0) {
      set_error(o, "OSError", strerror(errno));
      return 1;
    }
    if (open_count < kMaxOpen) open_fds[open_count++] = fd;
    return 0;
  }
  if (!strcmp(line, "fdof")) {
    int fd = open(arg, O_RDONLY);
    if (fd < 0) {
      set_error(o, "OSError", strerror(errno));
      return 1;
    }
    close(fd);
    char text[16];
    snprintf(text, sizeof text, "%d", fd);
    set_text(o, text, strlen(text));
    return 0;
  }
  if (!strcmp(line, "closeall")) {
    while (open_count > 0) close(open_fds[--open_count]);
    return 0;
  }
  if (!strcmp(line, "closefd")) {
    if (close(atoi(arg)) != 0) {
      set_error(o, "OSError", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (!strcmp(line, "renumber")) {
    char* to = strchr(arg, ' ');
    if (!to) {
      set_error(o, "UsageError", "renumber A B");
      return 1;
    }
    __wasi_errno_t err = __wasi_fd_renumber((__wasi_fd_t)atoi(arg), (__wasi_fd_t)atoi(to + 1));
    if (err != 0) {
      set_error(o, "OSError", strerror(err));
      return 1;
    }
    return 0;
  }
  if (!strcmp(line, "spin")) {
    for (volatile unsigned long i = 0;; i++) {
    }
  }
  if (!strcmp(line, "trap")) __builtin_trap();
  if (!strcmp(line, "exit")) {
    fflush(stdout);
    exit(atoi(arg));
  }
  if (!strcmp(line, "alloc")) {
    size_t mb = (size_t)atol(arg);
    for (size_t i = 0; i < mb; i++) {
      char** grown = realloc(blocks, (block_count + 1) * sizeof *blocks);
      char* p = grown ? malloc(1 << 20) : NULL;
      if (grown) blocks = grown;
      if (!p) {
        set_error(o, "MemoryError", "out of memory");
        return 1;
      }
      memset(p, 1, 1 << 20);
      blocks[block_count++] = p;
    }
    return 0;
  }
  if (!strcmp(line, "zerodata")) {
    for (size_t i = 0; i < DATA_WORDS; i++) data_words[i] = 0;
    return 0;
  }
  if (!strcmp(line, "datasum")) {
    unsigned long long sum = 0;
    for (size_t i = 0; i < DATA_WORDS; i++) sum += data_words[i];
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", sum);
    set_text(o, buf, strlen(buf));
    return 0;
  }
  if (!strcmp(line, "random")) {
    rng_state ^= rng_state >> 12; /* xorshift64* */
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    char n[32];
    snprintf(n, sizeof n, "%llu", rng_state * 0x2545F4914F6CDD1DULL);
    set_text(o, n, strlen(n));
    return 0;
  }
  if (!strcmp(line, "restores")) {
    char n[16];
    snprintf(n, sizeof n, "%d", restore_count);
    set_text(o, n, strlen(n));
    return 0;
  }
  if (!*line) return 0;
  set_error(o, "SyntaxError", line);
  return 1;
}

SANDBOX_EXPORT("session_init") int session_init(void) {
#ifdef PROBE_BROKEN_INIT
  sbx_result_message("probe refuses to start");
  return SANDBOX_INTERNAL_ERROR;
#else
  initialized = 1;
  restore_count = 0;
  seed_rng();
  sbx_result_message("");
  return SANDBOX_OK;
#endif
}

SANDBOX_EXPORT("after_restore") void after_restore(void) {
  restore_count++;
  seed_rng();
}

SANDBOX_EXPORT("eval") int eval(const char* data, size_t len) {
  if (!initialized) {
    sbx_result_message("eval before session_init");
    return SANDBOX_INTERNAL_ERROR;
  }
  sbx_request req;
  if (sbx_parse_request(data, len, &req) != 0) {
    sbx_result_message("malformed request");
    return SANDBOX_INTERNAL_ERROR;
  }
  if (req.cwd && req.cwd_len) {
    char* cwd = dup_n(req.cwd, req.cwd_len);
    if (chdir(cwd) != 0) { /* stays where it was */
    }
    free(cwd);
  }
  {
    clearenv(); /* the request's records are the whole environment, even when there are none */
    for (size_t i = 0; i < req.env_count; i++) {
      char* kv = dup_n(req.env[i], req.env_len[i]);
      char* eq = strchr(kv, '=');
      if (eq) {
        *eq = 0;
        setenv(kv, eq + 1, 1);
      }
      free(kv);
    }
  }
  outcome o;
  memset(&o, 0, sizeof o);
  char* code = dup_n(req.code, req.code_len);
  for (char* line = code; line;) {
    char* next = strchr(line, '\n');
    if (next) *next++ = 0;
    if (run_line(&o, line)) break;
    line = next;
  }
  fflush(stdout);
  fflush(stderr);
  int status;
  sbx_buf_clear(&sbx_result);
  if (o.raw) {
    sbx_buf_append(&sbx_result, o.raw, o.raw_len);
    status = o.status;
  } else {
    sbx_buf_puts(&sbx_result, "{\"results\":[");
    if (o.result.len) sbx_buf_append(&sbx_result, o.result.data, o.result.len);
    sbx_buf_puts(&sbx_result, "]");
    if (o.error.len) {
      sbx_buf_puts(&sbx_result, ",\"error\":");
      sbx_buf_append(&sbx_result, o.error.data, o.error.len);
    }
    char cwd[512];
    const char* reported = o.report_cwd ? o.report_cwd : getcwd(cwd, sizeof cwd);
    if (reported) {
      sbx_buf_puts(&sbx_result, ",\"cwd\":");
      sbx_buf_json_string(&sbx_result, reported, strlen(reported));
    }
    sbx_buf_puts(&sbx_result, "}");
    status = o.error.len ? SANDBOX_LANGUAGE_ERROR : SANDBOX_OK;
  }
  free(code);
  free(o.result.data);
  free(o.error.data);
  free(o.report_cwd);
  return status;
}
