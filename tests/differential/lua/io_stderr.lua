io.stderr:write("to stderr\n")
print("to stdout")
io.stderr:write("more stderr\n")
