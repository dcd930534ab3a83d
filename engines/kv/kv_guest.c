/* The `kv` test engine's interpreter: a tiny line-oriented language implementing the embedded
 * ABI of engines/common/sandbox_guest.h. It exists to exercise the host end to end (sessions,
 * snapshots, fuel, memory, output, files), not to be useful.
 *
 * One command per line; blank lines and lines starting with '#' are skipped; execution stops
 * at the first failing command. The result of the call is that of the last command producing
 * one.
 *
 *   set NAME VALUE    NAME = VALUE (the rest of the line)
 *   get NAME          result: the value (text); KeyError when unset
 *   incr NAME         NAME = NAME + 1 (unset counts as 0); result: the new value; ValueError
 *                     when the value is not an integer
 *   print TEXT        TEXT and a newline on stdout
 *   fail MESSAGE      error {name "KvError", message MESSAGE}
 *   spin              loops forever (until the host stops it)
 *   alloc MB          allocates and touches MB MiB, kept for the life of the instance;
 *                     MemoryError "out of memory" when that fails
 *   filled            result: how many bytes of what `alloc` kept still hold what it wrote
 *   open PATH         opens PATH read-only and leaves it open
 *   close             closes every file `open` left open
 *   write PATH TEXT   writes TEXT (the rest of the line) to PATH, replacing it
 *   read PATH         result: the content of PATH (text)
 *
 * File errors are OSError "<path>: <strerror>". An unknown command is a SyntaxError. Every
 * error's traceback is ["line N: <the command line>"].
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox_guest.h"

typedef struct var {
  char* name;
  char* value;
  struct var* next;
} var;

typedef struct block {
  struct block* next;
} block;

static var* vars;
static block* blocks; /* `alloc` keeps its memory here so it stays allocated */
static int open_fds[256];
static int open_count;
static int initialized;

typedef struct {
  sbx_buf result; /* {"text": ...} or empty */
  sbx_buf error;  /* the error object or empty */
} outcome;

static var* find_var(const char* name) {
  for (var* v = vars; v; v = v->next) {
    if (!strcmp(v->name, name)) return v;
  }
  return NULL;
}

static int set_var(const char* name, const char* value) {
  var* v = find_var(name);
  char* copy = strdup(value);
  if (!copy) return 0;
  if (!v) {
    v = calloc(1, sizeof *v);
    char* n = strdup(name);
    if (!v || !n) {
      free(v);
      free(n);
      free(copy);
      return 0;
    }
    v->name = n;
    v->next = vars;
    vars = v;
  }
  free(v->value);
  v->value = copy;
  return 1;
}

static void fail(outcome* o, const char* name, const char* message, int line_no, const char* line) {
  char where[64];
  snprintf(where, sizeof where, "line %d: ", line_no);
  sbx_buf_clear(&o->error);
  sbx_buf_puts(&o->error, "{\"name\":");
  sbx_buf_json_string(&o->error, name, strlen(name));
  sbx_buf_puts(&o->error, ",\"message\":");
  sbx_buf_json_string(&o->error, message, strlen(message));
  sbx_buf_puts(&o->error, ",\"traceback\":[");
  sbx_buf tb = {0};
  sbx_buf_puts(&tb, where);
  sbx_buf_puts(&tb, line);
  sbx_buf_json_string(&o->error, tb.data, tb.len);
  free(tb.data);
  sbx_buf_puts(&o->error, "]}");
}

static void os_fail(outcome* o, const char* path, int line_no, const char* line) {
  char message[512];
  snprintf(message, sizeof message, "%s: %s", path, strerror(errno));
  fail(o, "OSError", message, line_no, line);
}

static void set_text(outcome* o, const char* s, size_t n) {
  sbx_buf_clear(&o->result);
  sbx_buf_puts(&o->result, "{\"text\":");
  sbx_buf_json_string(&o->result, s, n);
  sbx_buf_puts(&o->result, "}");
}

/* Splits "word rest" in place: returns rest ("" when there is none). */
static char* split_word(char* s) {
  char* space = strchr(s, ' ');
  if (!space) return s + strlen(s);
  *space = 0;
  return space + 1;
}

/* Runs one line; returns 0 to continue, 1 after an error. `line` is modified. */
static int run_line(outcome* o, char* line, const char* original, int n) {
  char* arg = split_word(line);
  const char* cmd = line;
  if (!strcmp(cmd, "set")) {
    char* value = split_word(arg);
    if (!*arg) {
      fail(o, "SyntaxError", "usage: set NAME VALUE", n, original);
      return 1;
    }
    if (!set_var(arg, value)) {
      fail(o, "MemoryError", "out of memory", n, original);
      return 1;
    }
    return 0;
  }
  if (!strcmp(cmd, "get")) {
    var* v = find_var(arg);
    if (!v) {
      char message[300];
      snprintf(message, sizeof message, "%.256s is not set", arg);
      fail(o, "KeyError", message, n, original);
      return 1;
    }
    set_text(o, v->value, strlen(v->value));
    return 0;
  }
  if (!strcmp(cmd, "incr")) {
    var* v = find_var(arg);
    long long value = 0;
    if (v) {
      char* end;
      errno = 0;
      value = strtoll(v->value, &end, 10);
      if (errno || end == v->value || *end) {
        fail(o, "ValueError", "not an integer", n, original);
        return 1;
      }
    }
    char text[32];
    snprintf(text, sizeof text, "%lld", value + 1);
    if (!set_var(arg, text)) {
      fail(o, "MemoryError", "out of memory", n, original);
      return 1;
    }
    set_text(o, text, strlen(text));
    return 0;
  }
  if (!strcmp(cmd, "print")) {
    puts(arg);
    return 0;
  }
  if (!strcmp(cmd, "fail")) {
    fail(o, "KvError", arg, n, original);
    return 1;
  }
  if (!strcmp(cmd, "spin")) {
    for (volatile unsigned long i = 0;; i++) {
    }
  }
  if (!strcmp(cmd, "alloc")) {
    long mb = atol(arg);
    for (long i = 0; i < mb; i++) {
      block* b = malloc(1 << 20);
      if (!b) {
        fail(o, "MemoryError", "out of memory", n, original);
        return 1;
      }
      memset(b, 0xab, 1 << 20);
      b->next = blocks;
      blocks = b;
    }
    return 0;
  }
  if (!strcmp(cmd, "filled")) {
    unsigned long count = 0;
    for (block* b = blocks; b; b = b->next) {
      const unsigned char* bytes = (const unsigned char*)b;
      for (unsigned long i = sizeof *b; i < (1 << 20); i++) count += bytes[i] == 0xab;
    }
    char text[32];
    snprintf(text, sizeof text, "%lu", count);
    set_text(o, text, strlen(text));
    return 0;
  }
  if (!strcmp(cmd, "open")) {
    int fd = open(arg, O_RDONLY);
    if (fd < 0) {
      os_fail(o, arg, n, original);
      return 1;
    }
    if (open_count == (int)(sizeof open_fds / sizeof *open_fds)) {
      close(fd);
      fail(o, "OSError", "too many open files", n, original);
      return 1;
    }
    open_fds[open_count++] = fd;
    return 0;
  }
  if (!strcmp(cmd, "close")) {
    while (open_count > 0) close(open_fds[--open_count]);
    return 0;
  }
  if (!strcmp(cmd, "write")) {
    char* text = split_word(arg);
    FILE* f = fopen(arg, "w");
    if (!f) {
      os_fail(o, arg, n, original);
      return 1;
    }
    size_t len = strlen(text);
    int ok = fwrite(text, 1, len, f) == len;
    int saved = errno;
    if (fclose(f) != 0)
      ok = 0;
    else
      errno = saved;
    if (!ok) {
      os_fail(o, arg, n, original);
      return 1;
    }
    return 0;
  }
  if (!strcmp(cmd, "read")) {
    FILE* f = fopen(arg, "r");
    if (!f) {
      os_fail(o, arg, n, original);
      return 1;
    }
    sbx_buf content = {0};
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) sbx_buf_append(&content, chunk, got);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
      free(content.data);
      os_fail(o, arg, n, original);
      return 1;
    }
    set_text(o, content.data ? content.data : "", content.len);
    free(content.data);
    return 0;
  }
  char message[300];
  snprintf(message, sizeof message, "unknown command: %.256s", cmd);
  fail(o, "SyntaxError", message, n, original);
  return 1;
}

SANDBOX_EXPORT("session_init") int session_init(void) {
  initialized = 1;
  sbx_result_message("");
  return SANDBOX_OK;
}

SANDBOX_EXPORT("eval") int eval(const char* data, size_t len) {
  if (!initialized) {
    sbx_result_message("eval called before session_init");
    return SANDBOX_INTERNAL_ERROR;
  }
  sbx_request req;
  if (sbx_parse_request(data, len, &req) != 0) {
    sbx_result_message("malformed request");
    return SANDBOX_INTERNAL_ERROR;
  }
  if (req.cwd_len > 0) {
    char* cwd = sbx_strndup(req.cwd, req.cwd_len);
    if (cwd) {
      if (chdir(cwd) != 0) { /* a missing cwd leaves the previous one */
      }
      free(cwd);
    }
  }
  clearenv();
  for (size_t i = 0; i < req.env_count; i++) {
    char* entry = sbx_strndup(req.env[i], req.env_len[i]);
    char* eq = entry ? strchr(entry, '=') : NULL;
    if (eq) {
      *eq = 0;
      setenv(entry, eq + 1, 1);
    }
    free(entry);
  }

  outcome o = {{0}, {0}};
  char* code = sbx_strndup(req.code, req.code_len);
  if (!code) {
    sbx_result_message("out of memory");
    return SANDBOX_INTERNAL_ERROR;
  }
  int line_no = 0;
  for (char* line = code; line;) {
    char* next = strchr(line, '\n');
    if (next) *next++ = 0;
    line_no++;
    size_t l = strlen(line);
    if (l > 0 && line[l - 1] == '\r') line[--l] = 0;
    if (l > 0 && line[0] != '#') {
      char* original = strdup(line);
      int stop = run_line(&o, line, original ? original : "", line_no);
      free(original);
      if (stop) break;
    }
    line = next;
  }
  free(code);
  fflush(stdout);
  fflush(stderr);

  sbx_buf_clear(&sbx_result);
  sbx_buf_puts(&sbx_result, "{\"results\":[");
  if (o.result.len && !o.error.len) sbx_buf_append(&sbx_result, o.result.data, o.result.len);
  sbx_buf_puts(&sbx_result, "]");
  if (o.error.len) {
    sbx_buf_puts(&sbx_result, ",\"error\":");
    sbx_buf_append(&sbx_result, o.error.data, o.error.len);
  }
  char cwd[1024];
  if (getcwd(cwd, sizeof cwd)) {
    sbx_buf_puts(&sbx_result, ",\"cwd\":");
    sbx_buf_json_string(&sbx_result, cwd, strlen(cwd));
  }
  sbx_buf_puts(&sbx_result, "}");
  int status = o.error.len ? SANDBOX_LANGUAGE_ERROR : SANDBOX_OK;
  free(o.result.data);
  free(o.error.data);
  return status;
}
