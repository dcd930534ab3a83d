/* CPython 3.11 guest driver: the embedded ABI of engines/common/sandbox_guest.h over one
 * interpreter that lives as long as the instance (and across snapshots of its memory).
 *
 * The stdlib is read at run time from /stdlib/python311.zip (make_stdlib_zip.py), which also
 * carries _sandbox_repl (sandbox_repl.py): the REPL semantics live there, in Python. This file
 * boots the interpreter, decodes requests, and turns the rare failure of the Python side
 * itself (out of memory while formatting a result) into a response.
 */
#define PY_SSIZE_T_CLEAN
#include "Python.h"
#include "sandbox_guest.h"

enum { kResultReserve = 1 << 16 };

static const wchar_t kStdlibZip[] = L"/stdlib/python311.zip";

static PyObject* g_execute;       /* _sandbox_repl.execute(source, cwd, env_pairs) */
static PyObject* g_after_restore; /* _sandbox_repl.after_restore() */

/* Sets the response to "<what>: <the pending Python exception>" and clears the exception. */
static void result_from_exception(const char* what) {
  sbx_result_message(what);
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject* text = value ? PyObject_Str(value) : NULL;
  const char* s = text ? PyUnicode_AsUTF8(text) : NULL;
  sbx_buf_puts(&sbx_result, ": ");
  sbx_buf_puts(&sbx_result, type ? ((PyTypeObject*)type)->tp_name : "unknown error");
  if (s && *s) {
    sbx_buf_puts(&sbx_result, ": ");
    sbx_buf_puts(&sbx_result, s);
  }
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  PyErr_Clear();
}

static int init_failed(PyConfig* config, PyStatus status) {
  PyConfig_Clear(config);
  sbx_result_message("cannot initialise Python: ");
  sbx_buf_puts(&sbx_result, status.err_msg ? status.err_msg : "unknown error");
  if (status.func) {
    sbx_buf_puts(&sbx_result, " (in ");
    sbx_buf_puts(&sbx_result, status.func);
    sbx_buf_puts(&sbx_result, ")");
  }
  return SANDBOX_INTERNAL_ERROR;
}

SANDBOX_EXPORT("session_init") int session_init(void) {
  if (g_execute) {
    sbx_result_message("");
    return SANDBOX_OK;
  }
  if (!sbx_buf_reserve(&sbx_result, kResultReserve)) return SANDBOX_INTERNAL_ERROR;
  sbx_buffer_stdio();

  /* UTF-8 everywhere (file names, open(), stdio): the WASI build's locale is plain C/ASCII. */
  PyPreConfig preconfig;
  PyPreConfig_InitIsolatedConfig(&preconfig);
  preconfig.utf8_mode = 1;
  PyStatus status = Py_PreInitialize(&preconfig);
  if (PyStatus_Exception(status)) {
    sbx_result_message("cannot pre-initialise Python: ");
    sbx_buf_puts(&sbx_result, status.err_msg ? status.err_msg : "unknown error");
    return SANDBOX_INTERNAL_ERROR;
  }

  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.site_import = 0;        /* no site-packages in the sandbox; saves start-up time */
  config.write_bytecode = 0;     /* the stdlib is read-only and precompiled */
  config.install_signal_handlers = 0;
  config.pathconfig_warnings = 0;
  config.buffered_stdio = 1;     /* flushed after every request */
  status = PyConfig_SetString(&config, &config.program_name, L"python3.11");
  if (PyStatus_Exception(status)) return init_failed(&config, status);
  status = PyConfig_SetString(&config, &config.home, L"/stdlib");
  if (PyStatus_Exception(status)) return init_failed(&config, status);
  config.module_search_paths_set = 1;
  status = PyWideStringList_Append(&config.module_search_paths, kStdlibZip);
  if (PyStatus_Exception(status)) return init_failed(&config, status);
  status = Py_InitializeFromConfig(&config);
  if (PyStatus_Exception(status)) return init_failed(&config, status);
  PyConfig_Clear(&config);

  PyObject* repl = PyImport_ImportModule("_sandbox_repl");
  if (!repl) {
    result_from_exception("cannot import _sandbox_repl from /stdlib/python311.zip");
    return SANDBOX_INTERNAL_ERROR;
  }
  g_execute = PyObject_GetAttrString(repl, "execute");
  g_after_restore = g_execute ? PyObject_GetAttrString(repl, "after_restore") : NULL;
  Py_DECREF(repl);
  if (!g_execute || !g_after_restore) {
    Py_CLEAR(g_execute);
    result_from_exception("_sandbox_repl is incomplete");
    return SANDBOX_INTERNAL_ERROR;
  }
  fflush(stdout);
  fflush(stderr);
  sbx_result_message("");
  return SANDBOX_OK;
}

/* Request fields are UTF-8; undecodable bytes survive as lone surrogates, as in os.fsdecode. */
static PyObject* decode(const char* s, size_t n) {
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)n, "surrogateescape");
}

static PyObject* env_pairs(const sbx_request* r) {
  PyObject* list = PyList_New(0);
  for (size_t i = 0; list && i < r->env_count; i++) {
    const char* eq = memchr(r->env[i], '=', r->env_len[i]);
    if (!eq) continue;
    size_t name_len = (size_t)(eq - r->env[i]);
    PyObject* pair = Py_BuildValue("(NN)", decode(r->env[i], name_len),
                                   decode(eq + 1, r->env_len[i] - name_len - 1));
    if (!pair || PyList_Append(list, pair) < 0) Py_CLEAR(list);
    Py_XDECREF(pair);
  }
  return list;
}

SANDBOX_EXPORT("eval") int eval(const char* data, size_t len) {
  if (!g_execute) {
    sbx_result_message("eval called before session_init");
    return SANDBOX_INTERNAL_ERROR;
  }
  sbx_request request;
  if (sbx_parse_request(data, len, &request) != 0) {
    sbx_result_message("malformed request");
    return SANDBOX_INTERNAL_ERROR;
  }
  PyObject* source = decode(request.code, request.code_len);
  PyObject* cwd = request.cwd ? decode(request.cwd, request.cwd_len) : Py_NewRef(Py_None);
  PyObject* env = env_pairs(&request);
  PyObject* outcome = NULL;
  if (source && cwd && env) outcome = PyObject_CallFunctionObjArgs(g_execute, source, cwd, env, NULL);
  Py_XDECREF(source);
  Py_XDECREF(cwd);
  Py_XDECREF(env);
  fflush(stdout);
  fflush(stderr);

  int status = SANDBOX_INTERNAL_ERROR;
  const char* envelope = NULL;
  Py_ssize_t envelope_len = 0;
  if (outcome && PyTuple_Check(outcome) && PyTuple_GET_SIZE(outcome) == 2) {
    status = (int)PyLong_AsLong(PyTuple_GET_ITEM(outcome, 0));
    envelope = PyUnicode_AsUTF8AndSize(PyTuple_GET_ITEM(outcome, 1), &envelope_len);
  }
  if (envelope) {
    sbx_buf_clear(&sbx_result);
    sbx_buf_append(&sbx_result, envelope, (size_t)envelope_len);
    Py_DECREF(outcome);
    if (!sbx_result.failed) return status;
    sbx_result_message("out of memory while writing the response");
    return SANDBOX_INTERNAL_ERROR;
  }
  Py_XDECREF(outcome);
  if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
    /* The guest's code ran (or failed) but there was no memory left to report on it. */
    PyErr_Clear();
    sbx_result_message(
        "{\"results\":[],\"error\":{\"name\":\"MemoryError\",\"message\":\"out of memory while "
        "formatting the result\",\"traceback\":[\"MemoryError: out of memory while formatting "
        "the result\"]}}");
    return SANDBOX_LANGUAGE_ERROR;
  }
  result_from_exception("the Python driver failed");
  return SANDBOX_INTERNAL_ERROR;
}

SANDBOX_EXPORT("after_restore") void after_restore(void) {
  if (!g_after_restore) return;
  PyObject* r = PyObject_CallNoArgs(g_after_restore);
  if (!r) PyErr_Clear();
  Py_XDECREF(r);
}
