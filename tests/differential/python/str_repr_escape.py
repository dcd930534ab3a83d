for s in ["plain", "it's", 'say "hi"', "both ' and \"", "tab\tnl\n", "\x00\x7f", "é☃𝄞", "\u200b"]:
    print(repr(s), ascii(s))
print(repr(b"\x00abc\xff"), repr(bytearray(b"hi")))
