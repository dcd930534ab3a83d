# expected-difference: time.sleep raises OSError (Errno 58, Not supported): the sandbox's WASI host refuses poll_oneoff, through which WASI's libc sleeps
import time
time.sleep(0.01)
print("slept")
