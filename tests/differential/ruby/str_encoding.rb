s = "naïve café ☕"
p s.length, s.bytesize, s.encoding, s.bytes.first(8), s.valid_encoding?
p s.encode("UTF-16LE").bytesize, s.force_encoding("ASCII-8BIT").length
s.force_encoding("UTF-8")
p s.unicode_normalize(:nfd).length, "e\u0301".unicode_normalize(:nfc) == "é"
p "\xff\xfe".dup.force_encoding("UTF-8").valid_encoding?, "\xffabc".scrub("?"), "abc".encode("ASCII").encoding
p "日本".unpack("U*"), [26085, 26412].pack("U*"), "hi".unpack1("H*"), ["6869"].pack("H*")
begin
  "é".encode("ASCII")
rescue => e
  puts e.class, e.message
end
