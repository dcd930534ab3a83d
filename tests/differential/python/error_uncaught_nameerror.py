# expected-difference: the "Did you mean" suggestion is added by the native interpreter's traceback printer, not by str(error); the sandbox reports str(error)
value = 10
print(valeu)
