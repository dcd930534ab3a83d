b = "hello".b
p b.encoding.to_s, b.bytes, b.unpack("C*"), [72, 105].pack("C*"), [1, 2, 3].pack("n*").bytes, "\x01\x02".unpack1("n")
p [0x12345678].pack("N").unpack1("H*"), [1.5].pack("g").unpack1("g"), ["abc"].pack("a5").bytes, ["abc"].pack("A5")
p "abc".sum, "\u00e9".bytes, "\u00e9".b.length, [233].pack("U"), "é".unpack("C*")
