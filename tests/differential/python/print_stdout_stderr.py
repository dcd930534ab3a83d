import sys
print("out 1")
print("err 1", file=sys.stderr)
sys.stdout.write("out 2\n")
sys.stderr.write("err 2\n")
print("out 3")
sys.stdout.write("partial ")
sys.stdout.write("line\n")
