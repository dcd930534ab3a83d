-- expected-difference: output is UTF-8 text on the wire: a byte sequence that is not valid UTF-8 reaches the caller as U+FFFD
print("bytes: \200\255 end")
io.write("\xff\n")
