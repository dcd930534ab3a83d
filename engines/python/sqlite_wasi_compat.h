/* Forced into SQLite's amalgamation (-include) for the wasm32-wasi build (build_wasi_libs.sh).
 *
 * SQLite 3.40's unix VFS names a few POSIX calls and constants wasi-libc does not have. The
 * default VFS is "unix-none" (no locks: WASI has none), so the fcntl lock commands below are
 * only reached when a program asks for another unix VFS by name, and fcntl then fails with
 * EINVAL (an I/O error in SQL, never a crash). WASI files have no owner or mode to copy onto a
 * journal, so fchmod/fchown succeed doing nothing and the process is never root. */
#ifndef SANDBOX_SQLITE_WASI_COMPAT_H_
#define SANDBOX_SQLITE_WASI_COMPAT_H_

#include <fcntl.h>
#include <sys/types.h>

#ifndef F_RDLCK
#define F_RDLCK 0
#define F_WRLCK 1
#define F_UNLCK 2
#define F_GETLK 12
#define F_SETLK 13
#define F_SETLKW 14
#endif

static inline int fchmod(int fd, mode_t mode) {
  (void)fd;
  (void)mode;
  return 0;
}

static inline int fchown(int fd, uid_t uid, gid_t gid) {
  (void)fd;
  (void)uid;
  (void)gid;
  return 0;
}

static inline uid_t geteuid(void) { return 1; }

#endif /* SANDBOX_SQLITE_WASI_COMPAT_H_ */
