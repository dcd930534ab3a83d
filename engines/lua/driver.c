/* Lua 5.4 guest driver: the embedded ABI of engines/common/sandbox_guest.h over one lua_State
 * that lives as long as the instance (and across snapshots of its memory).
 *
 * REPL semantics, like the standalone lua.c:
 *   - the code is first compiled as `return <code>`; when that is not valid Lua, as it is;
 *   - globals persist between calls, `local`s do not (each call is its own chunk);
 *   - the returned values are the result: none for no value or a single nil; a table becomes
 *     {"json": ...} when it serializes (a sequence 1..n -> array, only string keys -> object with
 *     sorted keys, {} -> object; numbers must be finite; nested the same way) and has no
 *     __tostring, else {"text": tostring(t)}; a string becomes {"text": <Lua string literal>},
 *     double-quoted with \" \\ \n \r \t \a \b \f \v and \ddd escapes, so "1" and 1 differ; any
 *     other value becomes {"text": tostring(v)}; several values become one text entry, the
 *     representations separated by tabs.
 *   - errors: {"name": "LuaError" (runtime), "SyntaxError" (does not compile) or "MemoryError"
 *     (not enough memory), "message": the error value as a string (for error objects without
 *     __tostring: "(error object is a <type> value)"), "traceback": ["<name>: <message>", then
 *     one line per frame, innermost first, as luaL_traceback prints them]}.
 *   - os.getenv reads the request's environment; os.exit raises an error (a sandboxed program
 *     cannot end the process); io.popen, os.execute and os.tmpname report failure.
 *   - the cwd is set from the request before the code runs and reported after it.
 *   - package.path looks in the cwd and in /workspace; C modules cannot be loaded.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wasi/api.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"
#include "sandbox_guest.h"

enum { kJsonMaxDepth = 100, kResultReserve = 1 << 16 };

static const char kEnvKey[] = "sandbox.env";
static const char kChunkName[] = "=input";

static lua_State* g_lua;

/* ---- representation of values ---- */

/* Appends `s` as a double-quoted Lua string literal. */
static void append_lua_string_literal(sbx_buf* b, const char* s, size_t n) {
  sbx_buf_append(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char* esc = NULL;
    switch (c) {
      case '"':
        esc = "\\\"";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\t':
        esc = "\\t";
        break;
      case '\a':
        esc = "\\a";
        break;
      case '\b':
        esc = "\\b";
        break;
      case '\f':
        esc = "\\f";
        break;
      case '\v':
        esc = "\\v";
        break;
      default:
        break;
    }
    if (esc) {
      sbx_buf_puts(b, esc);
    } else if (c < 0x20 || c == 0x7f) {
      /* Three digits, so a following digit cannot join the escape. */
      char tmp[5];
      snprintf(tmp, sizeof tmp, "\\%03u", (unsigned)c);
      sbx_buf_puts(b, tmp);
    } else {
      sbx_buf_append(b, (const char*)&c, 1);
    }
  }
  sbx_buf_append(b, "\"", 1);
}

/* Appends the shortest decimal form of a finite double that reads back to the same value. */
static void append_json_float(sbx_buf* b, double v) {
  char tmp[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (strtod(tmp, NULL) == v) break;
  }
  /* Keep floats recognisable as floats: 2.0 stays "2.0", not "2". */
  if (strspn(tmp, "-0123456789") == strlen(tmp)) strcat(tmp, ".0");
  sbx_buf_puts(b, tmp);
}

static int has_tostring(lua_State* L, int idx) {
  if (!lua_getmetatable(L, idx)) return 0;
  lua_pushliteral(L, "__tostring");
  int found = lua_rawget(L, -2) != LUA_TNIL;
  lua_pop(L, 2);
  return found;
}

typedef struct {
  const char* s;
  size_t n;
} table_key;

static int compare_keys(const void* a, const void* b) {
  const table_key* x = (const table_key*)a;
  const table_key* y = (const table_key*)b;
  int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
  return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
}

static int append_json(lua_State* L, int idx, sbx_buf* b, int depth);

/* Appends table `idx` as JSON; returns 0 on success, -1 when it does not serialize. */
static int append_json_table(lua_State* L, int idx, sbx_buf* b, int depth) {
  if (depth > kJsonMaxDepth || has_tostring(L, idx)) return -1;
  lua_checkstack(L, 4);
  size_t count = 0;
  lua_Integer max_index = 0;
  int integer_keys = 1, string_keys = 1;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    count++;
    if (lua_type(L, -1) == LUA_TSTRING) {
      integer_keys = 0;
    } else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0) {
      string_keys = 0;
      if (lua_tointeger(L, -1) > max_index) max_index = lua_tointeger(L, -1);
    } else {
      lua_pop(L, 1);
      return -1;
    }
  }
  if (count == 0) {
    sbx_buf_puts(b, "{}");
    return 0;
  }
  if (integer_keys && (lua_Integer)count == max_index) {
    sbx_buf_puts(b, "[");
    for (lua_Integer i = 1; i <= max_index; i++) {
      if (i > 1) sbx_buf_puts(b, ",");
      lua_rawgeti(L, idx, i);
      int rc = append_json(L, lua_gettop(L), b, depth + 1);
      lua_pop(L, 1);
      if (rc != 0) return -1;
    }
    sbx_buf_puts(b, "]");
    return 0;
  }
  if (!string_keys) return -1;
  /* Sorted keys: the output does not depend on Lua's (randomly seeded) hash order. The key
   * strings stay alive while the table is unchanged, which holds during serialization. */
  table_key* keys = (table_key*)malloc(count * sizeof *keys);
  if (!keys) return -1;
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    if (n < count) {
      keys[n].s = lua_tolstring(L, -1, &keys[n].n);
      n++;
    }
  }
  qsort(keys, n, sizeof *keys, compare_keys);
  int rc = 0;
  sbx_buf_puts(b, "{");
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (i > 0) sbx_buf_puts(b, ",");
    sbx_buf_json_string(b, keys[i].s, keys[i].n);
    sbx_buf_puts(b, ":");
    lua_pushlstring(L, keys[i].s, keys[i].n);
    lua_rawget(L, idx);
    rc = append_json(L, lua_gettop(L), b, depth + 1);
    lua_pop(L, 1);
  }
  free(keys);
  if (rc != 0) return -1;
  sbx_buf_puts(b, "}");
  return 0;
}

/* Appends value `idx` as JSON; returns 0 on success, -1 when it does not serialize. */
static int append_json(lua_State* L, int idx, sbx_buf* b, int depth) {
  switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
      sbx_buf_puts(b, lua_toboolean(L, idx) ? "true" : "false");
      return 0;
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, LUA_INTEGER_FMT, (LUAI_UACINT)lua_tointeger(L, idx));
        sbx_buf_puts(b, tmp);
        return 0;
      } else {
        double v = (double)lua_tonumber(L, idx);
        if (!isfinite(v)) return -1;
        append_json_float(b, v);
        return 0;
      }
    case LUA_TSTRING: {
      size_t n;
      const char* s = lua_tolstring(L, idx, &n);
      sbx_buf_json_string(b, s, n);
      return 0;
    }
    case LUA_TTABLE:
      return append_json_table(L, idx, b, depth);
    default:
      return -1;
  }
}

/* Appends the text representation of value `idx` (may raise: __tostring runs). */
static void append_text(lua_State* L, int idx, sbx_buf* b) {
  size_t n;
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char* s = lua_tolstring(L, idx, &n);
    append_lua_string_literal(b, s, n);
    return;
  }
  const char* s = luaL_tolstring(L, idx, &n);
  sbx_buf_append(b, s, n);
  lua_pop(L, 1);
}

/* ---- one request ---- */

typedef struct {
  const sbx_request* request;
  sbx_buf results;   /* the "results" array's contents (one entry or empty) */
  int status;        /* the chunk's Lua status */
  int out_of_memory; /* the result could not be formatted for lack of memory */
} eval_context;

/* The message handler of the chunk's pcall: returns {message, traceback} (traceback without
 * the "stack traceback:" header). */
static int message_handler(lua_State* L) {
  const char* msg = lua_tostring(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
      msg = lua_tostring(L, -1);
    } else {
      msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
  }
  lua_createtable(L, 2, 0);
  lua_pushstring(L, msg);
  lua_rawseti(L, -2, 1);
  luaL_traceback(L, L, NULL, 1);
  lua_rawseti(L, -2, 2);
  return 1;
}

static int l_getenv(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, kEnvKey);
  if (lua_type(L, -1) != LUA_TTABLE) {
    lua_pushnil(L);
    return 1;
  }
  lua_getfield(L, -1, name);
  return 1;
}

static int l_exit(lua_State* L) { return luaL_error(L, "os.exit is not supported in the sandbox"); }

/* Replaces the environment os.getenv sees with the request's. */
static void set_environment(lua_State* L, const sbx_request* r) {
  lua_createtable(L, 0, (int)r->env_count);
  for (size_t i = 0; i < r->env_count; i++) {
    const char* eq = memchr(r->env[i], '=', r->env_len[i]);
    if (!eq) continue;
    lua_pushlstring(L, r->env[i], (size_t)(eq - r->env[i]));
    lua_pushlstring(L, eq + 1, r->env_len[i] - (size_t)(eq - r->env[i]) - 1);
    lua_rawset(L, -3);
  }
  lua_setfield(L, LUA_REGISTRYINDEX, kEnvKey);
}

/* Compiles the code: `return <code>` first, then the code as it is. Leaves the chunk (status
 * LUA_OK) or the second attempt's error message on the stack. */
static int compile(lua_State* L, const char* code, size_t len) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "return ");
  luaL_addlstring(&b, code, len);
  luaL_pushresult(&b);
  size_t n;
  const char* src = lua_tolstring(L, -1, &n);
  int status = luaL_loadbuffer(L, src, n, kChunkName);
  lua_remove(L, -2);
  if (status == LUA_OK) return LUA_OK;
  lua_pop(L, 1);
  return luaL_loadbuffer(L, code, len, kChunkName);
}

/* Runs inside lua_pcall: anything here may raise (memory, __tostring). */
static int run_request(lua_State* L) {
  eval_context* ctx = (eval_context*)lua_touserdata(L, 1);
  const sbx_request* r = ctx->request;
  lua_settop(L, 0);
  set_environment(L, r);
  lua_pushcfunction(L, message_handler); /* index 1 */
  int status = compile(L, r->code, r->code_len);
  if (status == LUA_OK) status = lua_pcall(L, 0, LUA_MULTRET, 1);
  ctx->status = status;
  if (status != LUA_OK) return 1; /* the error value */
  int first = 2, last = lua_gettop(L);
  int n = last - first + 1;
  if (n <= 0 || (n == 1 && lua_isnil(L, first))) return 0;
  if (n == 1 && lua_type(L, first) == LUA_TTABLE) {
    sbx_buf json = {0};
    int rc = append_json_table(L, first, &json, 0);
    if (json.failed) {
      free(json.data);
      ctx->out_of_memory = 1;
      return 0;
    }
    if (rc == 0) {
      sbx_buf_puts(&ctx->results, "{\"json\":");
      sbx_buf_append(&ctx->results, json.data, json.len);
      sbx_buf_puts(&ctx->results, "}");
      free(json.data);
      ctx->out_of_memory = ctx->results.failed;
      return 0;
    }
    free(json.data);
  }
  sbx_buf text = {0};
  for (int i = first; i <= last; i++) {
    if (i > first) sbx_buf_append(&text, "\t", 1);
    append_text(L, i, &text);
  }
  sbx_buf_puts(&ctx->results, "{\"text\":");
  sbx_buf_json_string(&ctx->results, text.data ? text.data : "", text.len);
  sbx_buf_puts(&ctx->results, "}");
  ctx->out_of_memory = text.failed || ctx->results.failed;
  free(text.data);
  return 0;
}

/* Appends `"error":{...}` built from a message and an optional luaL_traceback text. */
static void append_error(sbx_buf* b, const char* name, const char* msg, size_t msg_len,
                         const char* tb) {
  sbx_buf_puts(b, "\"error\":{\"name\":");
  sbx_buf_json_string(b, name, strlen(name));
  sbx_buf_puts(b, ",\"message\":");
  sbx_buf_json_string(b, msg, msg_len);
  sbx_buf_puts(b, ",\"traceback\":[");
  sbx_buf first = {0};
  sbx_buf_puts(&first, name);
  sbx_buf_puts(&first, ": ");
  sbx_buf_append(&first, msg, msg_len);
  sbx_buf_json_string(b, first.data ? first.data : "", first.len);
  free(first.data);
  /* luaL_traceback: a "stack traceback:" header, then "\n\t<frame>" lines; the last
   * "[C]: in ?" frames are the driver's. */
  const char* frames[256];
  size_t frame_len[256];
  size_t count = 0;
  for (const char* p = tb; p && *p && count < 256;) {
    const char* end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char* line = p;
    while (len > 0 && (*line == '\t' || *line == ' ')) {
      line++;
      len--;
    }
    static const char kHeader[] = "stack traceback:";
    if (len > 0 && !(len == sizeof kHeader - 1 && memcmp(line, kHeader, len) == 0)) {
      frames[count] = line;
      frame_len[count] = len;
      count++;
    }
    p = end ? end + 1 : NULL;
  }
  while (count > 0 && frame_len[count - 1] == 9 && memcmp(frames[count - 1], "[C]: in ?", 9) == 0) {
    count--;
  }
  for (size_t i = 0; i < count; i++) {
    sbx_buf line = {0};
    sbx_buf_puts(&line, "  ");
    sbx_buf_append(&line, frames[i], frame_len[i]);
    sbx_buf_puts(b, ",");
    sbx_buf_json_string(b, line.data, line.len);
    free(line.data);
  }
  sbx_buf_puts(b, "]}");
}

static void append_cwd(sbx_buf* b) {
  char cwd[1024];
  if (getcwd(cwd, sizeof cwd) == NULL) return;
  sbx_buf_puts(b, ",\"cwd\":");
  sbx_buf_json_string(b, cwd, strlen(cwd));
}

static void flush_output(void) {
  fflush(stdout);
  fflush(stderr);
}

/* Re-seeds math.random from WASI's random_get (not arc4random: its state is in linear memory
 * and would repeat in every copy restored from one snapshot). */
static int seed_random(lua_State* L) {
  lua_Integer seed[2];
  if (__wasi_random_get((uint8_t*)seed, sizeof seed) != 0) {
    return luaL_error(L, "random_get failed");
  }
  lua_getglobal(L, "math");
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, seed[0]);
  lua_pushinteger(L, seed[1]);
  lua_call(L, 2, 0);
  lua_pop(L, 1);
  return 0;
}

static int init_state(lua_State* L) {
  luaL_openlibs(L);
  lua_getglobal(L, "os");
  lua_pushcfunction(L, l_getenv);
  lua_setfield(L, -2, "getenv");
  lua_pushcfunction(L, l_exit);
  lua_setfield(L, -2, "exit");
  lua_pop(L, 1);
  lua_getglobal(L, "package");
  lua_pushstring(L, "./?.lua;./?/init.lua;/workspace/?.lua;/workspace/?/init.lua");
  lua_setfield(L, -2, "path");
  lua_pushstring(L, "");
  lua_setfield(L, -2, "cpath");
  lua_pop(L, 1);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, kEnvKey);
  return seed_random(L);
}

SANDBOX_EXPORT("session_init") int session_init(void) {
  if (g_lua) {
    sbx_result_message("");
    return SANDBOX_OK;
  }
  /* The response must be writable even when the guest exhausted memory. */
  if (!sbx_buf_reserve(&sbx_result, kResultReserve)) return SANDBOX_INTERNAL_ERROR;
  sbx_buffer_stdio();
  lua_State* L = luaL_newstate();
  if (!L) {
    sbx_result_message("cannot create the Lua state: not enough memory");
    return SANDBOX_INTERNAL_ERROR;
  }
  lua_pushcfunction(L, init_state);
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    sbx_result_message("cannot initialise the Lua state: ");
    const char* msg = lua_tostring(L, -1);
    sbx_buf_puts(&sbx_result, msg ? msg : "(no message)");
    lua_close(L);
    return SANDBOX_INTERNAL_ERROR;
  }
  lua_settop(L, 0);
  g_lua = L;
  sbx_result_message("");
  return SANDBOX_OK;
}

SANDBOX_EXPORT("eval") int eval(const char* data, size_t len) {
  if (!g_lua) {
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

  lua_State* L = g_lua;
  eval_context ctx = {.request = &request, .status = LUA_OK};
  lua_settop(L, 0);
  lua_pushcfunction(L, run_request);
  lua_pushlightuserdata(L, &ctx);
  int driver_status = lua_pcall(L, 1, LUA_MULTRET, 0);
  flush_output();

  sbx_buf_clear(&sbx_result);
  sbx_buf_puts(&sbx_result, "{");
  int rc = SANDBOX_OK;
  if (driver_status == LUA_OK && ctx.status == LUA_OK && ctx.out_of_memory) {
    static const char kMessage[] = "not enough memory to format the result";
    sbx_buf_puts(&sbx_result, "\"results\":[],");
    append_error(&sbx_result, "MemoryError", kMessage, sizeof kMessage - 1, NULL);
    rc = SANDBOX_LANGUAGE_ERROR;
  } else if (driver_status == LUA_OK && ctx.status == LUA_OK) {
    sbx_buf_puts(&sbx_result, "\"results\":[");
    if (ctx.results.data) sbx_buf_append(&sbx_result, ctx.results.data, ctx.results.len);
    sbx_buf_puts(&sbx_result, "]");
  } else {
    int status = driver_status != LUA_OK ? driver_status : ctx.status;
    const char* name = status == LUA_ERRSYNTAX ? "SyntaxError"
                       : status == LUA_ERRMEM  ? "MemoryError"
                                               : "LuaError";
    const char* msg = NULL;
    size_t msg_len = 0;
    const char* tb = NULL;
    if (lua_type(L, -1) == LUA_TTABLE) { /* from message_handler */
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      msg = lua_tolstring(L, -2, &msg_len);
      tb = lua_tostring(L, -1);
    } else if (lua_type(L, -1) == LUA_TSTRING) {
      msg = lua_tolstring(L, -1, &msg_len);
    }
    if (!msg) {
      msg = "(error object is not a string)";
      msg_len = strlen(msg);
    }
    sbx_buf_puts(&sbx_result, "\"results\":[],");
    append_error(&sbx_result, name, msg, msg_len, tb);
    rc = SANDBOX_LANGUAGE_ERROR;
  }
  append_cwd(&sbx_result);
  sbx_buf_puts(&sbx_result, "}");
  free(ctx.results.data);
  lua_settop(L, 0);
  /* The space reserved at session_init makes this rare (an error message near 64 KiB). */
  if (sbx_result.failed) {
    sbx_result_message("out of memory while writing the response");
    return SANDBOX_INTERNAL_ERROR;
  }
  return rc;
}

SANDBOX_EXPORT("after_restore") void after_restore(void) {
  if (!g_lua) return;
  lua_settop(g_lua, 0);
  lua_pushcfunction(g_lua, seed_random);
  lua_pcall(g_lua, 0, 0, 0);
  lua_settop(g_lua, 0);
}
