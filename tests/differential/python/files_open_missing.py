# expected-difference: a stateless run has no /workspace, so opening a relative path is refused (PermissionError); in a sandbox the errno numbers are WASI's (ENOENT is 44, not 2)
try:
    open("no_such_file.txt")
except FileNotFoundError as e:
    print(type(e).__name__, e.errno, e.strerror, e.filename, isinstance(e, OSError))
import os
print(os.path.exists("no_such_file.txt"), os.path.join("a", "b"), os.sep, os.path.splitext("x.tar.gz"))
