#include "fs_natives.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  int number;
  const char* code;
  const char* description;
} errno_name;

/* Node's codes and descriptions for the errors a WASI filesystem reports. */
static const errno_name kErrnoNames[] = {
    {ENOENT, "ENOENT", "no such file or directory"},
    {EEXIST, "EEXIST", "file already exists"},
    {ENOTDIR, "ENOTDIR", "not a directory"},
    {EISDIR, "EISDIR", "illegal operation on a directory"},
    {EACCES, "EACCES", "permission denied"},
    {EPERM, "EPERM", "operation not permitted"},
    {ENOTEMPTY, "ENOTEMPTY", "directory not empty"},
    {EINVAL, "EINVAL", "invalid argument"},
    {EBADF, "EBADF", "bad file descriptor"},
    {ENOSPC, "ENOSPC", "no space left on device"},
    {EROFS, "EROFS", "read-only file system"},
    {EFBIG, "EFBIG", "file too large"},
    {ENAMETOOLONG, "ENAMETOOLONG", "name too long"},
    {ELOOP, "ELOOP", "too many symbolic links encountered"},
    {EMFILE, "EMFILE", "too many open files"},
    {EIO, "EIO", "i/o error"},
    {EXDEV, "EXDEV", "cross-device link not permitted"},
    {ENOTCAPABLE, "ENOTCAPABLE", "capabilities insufficient"},
    {ENOMEM, "ENOMEM", "not enough memory"},
};

static JSValue throw_errno(JSContext* ctx, int err, const char* syscall, const char* path) {
  const char* code = "EUNKNOWN";
  const char* description = strerror(err);
  for (size_t i = 0; i < sizeof kErrnoNames / sizeof kErrnoNames[0]; i++) {
    if (kErrnoNames[i].number == err) {
      code = kErrnoNames[i].code;
      description = kErrnoNames[i].description;
      break;
    }
  }
  JSValue error = JS_NewError(ctx);
  if (JS_IsException(error)) return error;
  size_t n = strlen(code) + strlen(description) + strlen(syscall) + strlen(path) + 16;
  char* message = (char*)malloc(n);
  if (message) snprintf(message, n, "%s: %s, %s '%s'", code, description, syscall, path);
  JS_DefinePropertyValueStr(ctx, error, "message", JS_NewString(ctx, message ? message : code),
                            JS_PROP_WRITABLE | JS_PROP_CONFIGURABLE);
  free(message);
  JS_SetPropertyStr(ctx, error, "code", JS_NewString(ctx, code));
  JS_SetPropertyStr(ctx, error, "errno", JS_NewInt32(ctx, -err));
  JS_SetPropertyStr(ctx, error, "syscall", JS_NewString(ctx, syscall));
  JS_SetPropertyStr(ctx, error, "path", JS_NewString(ctx, path));
  return JS_Throw(ctx, error);
}

/* Reads a whole file; returns a malloc'ed buffer or NULL with errno set. */
static char* read_file(const char* path, size_t* size) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return NULL;
  }
  if (S_ISDIR(st.st_mode)) {
    close(fd);
    errno = EISDIR;
    return NULL;
  }
  size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
  char* data = (char*)malloc(cap);
  for (;;) {
    if (!data) {
      close(fd);
      errno = ENOMEM;
      return NULL;
    }
    if (len == cap) {
      char* bigger = (char*)realloc(data, cap * 2);
      if (!bigger) free(data);
      data = bigger;
      cap *= 2;
      continue;
    }
    ssize_t got = read(fd, data + len, cap - len);
    if (got < 0) {
      int e = errno;
      free(data);
      close(fd);
      errno = e;
      return NULL;
    }
    if (got == 0) break;
    len += (size_t)got;
  }
  close(fd);
  *size = len;
  return data;
}

/* read(path, asText) -> string (UTF-8) or ArrayBuffer */
static JSValue fs_read(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  int as_text = JS_ToBool(ctx, argv[1]);
  size_t size = 0;
  char* data = read_file(path, &size);
  if (!data) {
    JSValue e = throw_errno(ctx, errno, "open", path);
    JS_FreeCString(ctx, path);
    return e;
  }
  JS_FreeCString(ctx, path);
  JSValue result = as_text ? JS_NewStringLen(ctx, data, size)
                           : JS_NewArrayBufferCopy(ctx, (const uint8_t*)data, size);
  free(data);
  return result;
}

/* write_file(path, string | ArrayBuffer, append) */
static JSValue fs_write_file(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  int append = JS_ToBool(ctx, argv[2]);
  const char* text = NULL;
  const uint8_t* bytes;
  size_t size;
  if (JS_IsString(argv[1])) {
    text = JS_ToCStringLen(ctx, &size, argv[1]);
    if (!text) {
      JS_FreeCString(ctx, path);
      return JS_EXCEPTION;
    }
    bytes = (const uint8_t*)text;
  } else {
    bytes = JS_GetArrayBuffer(ctx, &size, argv[1]);
    if (!bytes) {
      JS_FreeCString(ctx, path);
      return JS_EXCEPTION;
    }
  }
  JSValue result = JS_UNDEFINED;
  int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
  if (fd < 0) {
    result = throw_errno(ctx, errno, "open", path);
  } else {
    size_t done = 0;
    while (done < size) {
      ssize_t n = write(fd, bytes + done, size - done);
      if (n < 0) {
        result = throw_errno(ctx, errno, "write", path);
        break;
      }
      done += (size_t)n;
    }
    if (close(fd) != 0 && !JS_IsException(result)) result = throw_errno(ctx, errno, "close", path);
  }
  if (text) JS_FreeCString(ctx, text);
  JS_FreeCString(ctx, path);
  return result;
}

static const char* type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "directory";
  if (S_ISREG(mode)) return "file";
  if (S_ISLNK(mode)) return "symlink";
  return "other";
}

static const char* dirent_type_name(unsigned char type) {
  switch (type) {
    case DT_DIR: return "directory";
    case DT_REG: return "file";
    case DT_LNK: return "symlink";
    default: return "other";
  }
}

static int compare_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* readdir(path) -> [[name, type], ...] sorted by name, without "." and ".." */
static JSValue fs_readdir(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  DIR* dir = opendir(path);
  if (!dir) {
    JSValue e = throw_errno(ctx, errno, "scandir", path);
    JS_FreeCString(ctx, path);
    return e;
  }
  /* Each entry is stored as "<type>\0<name>" so one sort orders by name. */
  char** entries = NULL;
  size_t count = 0, cap = 0;
  int failed = 0;
  struct dirent* d;
  while ((d = readdir(dir)) != NULL) {
    if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0) continue;
    if (count == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      char** bigger = (char**)realloc(entries, ncap * sizeof *entries);
      if (!bigger) {
        failed = 1;
        break;
      }
      entries = bigger;
      cap = ncap;
    }
    const char* type = dirent_type_name(d->d_type);
    size_t name_len = strlen(d->d_name), type_len = strlen(type);
    char* entry = (char*)malloc(name_len + type_len + 2);
    if (!entry) {
      failed = 1;
      break;
    }
    memcpy(entry, d->d_name, name_len + 1);
    memcpy(entry + name_len + 1, type, type_len + 1);
    entries[count++] = entry;
  }
  closedir(dir);
  JSValue result;
  if (failed) {
    result = throw_errno(ctx, ENOMEM, "scandir", path);
  } else {
    qsort(entries, count, sizeof *entries, compare_names);
    result = JS_NewArray(ctx);
    for (size_t i = 0; i < count && !JS_IsException(result); i++) {
      JSValue pair = JS_NewArray(ctx);
      JS_SetPropertyUint32(ctx, pair, 0, JS_NewString(ctx, entries[i]));
      JS_SetPropertyUint32(ctx, pair, 1, JS_NewString(ctx, entries[i] + strlen(entries[i]) + 1));
      if (JS_SetPropertyUint32(ctx, result, (uint32_t)i, pair) < 0) {
        JS_FreeValue(ctx, result);
        result = JS_EXCEPTION;
      }
    }
  }
  for (size_t i = 0; i < count; i++) free(entries[i]);
  free(entries);
  JS_FreeCString(ctx, path);
  return result;
}

/* mkdir(path): one level */
static JSValue fs_mkdir(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  JSValue result = mkdir(path, 0777) == 0 ? JS_UNDEFINED : throw_errno(ctx, errno, "mkdir", path);
  JS_FreeCString(ctx, path);
  return result;
}

/* remove(path, isDirectory): rmdir or unlink */
static JSValue fs_remove(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  int is_dir = JS_ToBool(ctx, argv[1]);
  int rc = is_dir ? rmdir(path) : unlink(path);
  JSValue result = rc == 0 ? JS_UNDEFINED : throw_errno(ctx, errno, is_dir ? "rmdir" : "unlink", path);
  JS_FreeCString(ctx, path);
  return result;
}

/* rename(from, to) */
static JSValue fs_rename(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* from = JS_ToCString(ctx, argv[0]);
  if (!from) return JS_EXCEPTION;
  const char* to = JS_ToCString(ctx, argv[1]);
  if (!to) {
    JS_FreeCString(ctx, from);
    return JS_EXCEPTION;
  }
  JSValue result = rename(from, to) == 0 ? JS_UNDEFINED : throw_errno(ctx, errno, "rename", from);
  JS_FreeCString(ctx, to);
  JS_FreeCString(ctx, from);
  return result;
}

/* exists(path) -> bool */
static JSValue fs_exists(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  struct stat st;
  int found = stat(path, &st) == 0;
  JS_FreeCString(ctx, path);
  return JS_NewBool(ctx, found);
}

/* stat(path) -> {type, size, mtimeMs} */
static JSValue fs_stat(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  struct stat st;
  if (stat(path, &st) != 0) {
    JSValue e = throw_errno(ctx, errno, "stat", path);
    JS_FreeCString(ctx, path);
    return e;
  }
  JS_FreeCString(ctx, path);
  JSValue result = JS_NewObject(ctx);
  JS_SetPropertyStr(ctx, result, "type", JS_NewString(ctx, type_name(st.st_mode)));
  JS_SetPropertyStr(ctx, result, "size", JS_NewInt64(ctx, (int64_t)st.st_size));
  double mtime_ms = (double)st.st_mtim.tv_sec * 1e3 + (double)st.st_mtim.tv_nsec / 1e6;
  JS_SetPropertyStr(ctx, result, "mtimeMs", JS_NewFloat64(ctx, mtime_ms));
  return result;
}

/* cwd() -> string */
static JSValue fs_cwd(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  (void)argv;
  char buf[1024];
  if (!getcwd(buf, sizeof buf)) return throw_errno(ctx, errno, "uv_cwd", "");
  return JS_NewString(ctx, buf);
}

/* chdir(path): the directory must exist */
static JSValue fs_chdir(JSContext* ctx, JSValueConst this_val, int argc, JSValueConst* argv) {
  (void)this_val;
  (void)argc;
  const char* path = JS_ToCString(ctx, argv[0]);
  if (!path) return JS_EXCEPTION;
  struct stat st;
  JSValue result = JS_UNDEFINED;
  if (stat(path, &st) != 0) {
    result = throw_errno(ctx, errno, "chdir", path);
  } else if (!S_ISDIR(st.st_mode)) {
    result = throw_errno(ctx, ENOTDIR, "chdir", path);
  } else if (chdir(path) != 0) {
    result = throw_errno(ctx, errno, "chdir", path);
  }
  JS_FreeCString(ctx, path);
  return result;
}

void sbx_js_add_fs_natives(JSContext* ctx, JSValueConst natives) {
  static const JSCFunctionListEntry kFunctions[] = {
      JS_CFUNC_DEF("read", 2, fs_read),       JS_CFUNC_DEF("write_file", 3, fs_write_file),
      JS_CFUNC_DEF("readdir", 1, fs_readdir), JS_CFUNC_DEF("mkdir", 1, fs_mkdir),
      JS_CFUNC_DEF("remove", 2, fs_remove),   JS_CFUNC_DEF("rename", 2, fs_rename),
      JS_CFUNC_DEF("exists", 1, fs_exists),   JS_CFUNC_DEF("stat", 1, fs_stat),
      JS_CFUNC_DEF("cwd", 0, fs_cwd),         JS_CFUNC_DEF("chdir", 1, fs_chdir),
  };
  JS_SetPropertyFunctionList(ctx, natives, kFunctions,
                             (int)(sizeof kFunctions / sizeof kFunctions[0]));
}
