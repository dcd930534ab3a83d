import sys
print("to stdout")
print("to stderr", file=sys.stderr)
sys.stderr.write("more stderr\n")
raise LookupError("final")
