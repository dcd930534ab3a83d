/* libc functions that Debian's wasi-libc declares but does not define; Lua's io and os
 * libraries reference them. Both report failure the way Lua expects. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

FILE* tmpfile(void) {
  errno = ENOTSUP;
  return NULL;
}

int system(const char* command) {
  if (command == NULL) return 0; /* no command processor */
  errno = ENOSYS;
  return -1;
}
