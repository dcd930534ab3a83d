import struct
packed = struct.pack("<IhBd", 1, -2, 255, 1.5)
print(packed, len(packed), struct.unpack("<IhBd", packed), struct.calcsize(">q3sH"))
print(struct.pack(">H", 258), struct.unpack("!f", struct.pack("!f", 0.1))[0])
b = bytearray(b"hello"); b[0] = 74; b.extend(b"!"); print(b, bytes(b).upper(), b.find(b"l"))
print(b"a,b".split(b","), b"  x ".strip(), b"abc"[1], b"abc"[1:], list(b"AB"), b"%d-%s" % (5, b"x"))
mv = memoryview(b"abcdef"); print(mv[1:3].tobytes(), mv[0], len(mv))
try:
    struct.pack("B", 256)
except struct.error as e:
    print("struct.error:", e)
