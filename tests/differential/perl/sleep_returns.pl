# expected-difference: sleep returns at once in the sandbox (its WASI host refuses poll_oneoff), so sleep(1) returns 0 where perl slept and returns 1
print sleep(1), "\n";
