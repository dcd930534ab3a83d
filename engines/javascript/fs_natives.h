/* Native file-system functions for the QuickJS guest: the C half of the `fs` and `process`
 * globals that prelude.js builds. They work on the WASI filesystem (the host's /workspace and
 * /stdlib preopens); relative paths resolve against the current directory (process.chdir).
 *
 * Failures throw an Error whose message and `code` follow Node ("ENOENT: no such file or
 * directory, open 'x'"), with `errno`, `syscall` and `path` properties. */
#ifndef SANDBOX_JAVASCRIPT_FS_NATIVES_H_
#define SANDBOX_JAVASCRIPT_FS_NATIVES_H_

#include "quickjs.h"

/* Adds read, write_file, readdir, mkdir, remove, rename, exists, stat, cwd and chdir to the
 * object `natives` (see prelude.js for their signatures). */
void sbx_js_add_fs_natives(JSContext* ctx, JSValueConst natives);

#endif /* SANDBOX_JAVASCRIPT_FS_NATIVES_H_ */
