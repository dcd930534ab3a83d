# expected-difference: the sandbox's Python does not import the site module, so the exit, quit, help, copyright and license builtins do not exist (sys.exit works)
print(callable(exit), callable(quit))
