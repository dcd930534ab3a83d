require "base64"
require "digest"
data = "The quick brown fox"
p Base64.encode64(data), Base64.strict_encode64(data), Base64.decode64("aGVsbG8="), Base64.urlsafe_encode64("\xfb\xff".b)
p Digest::MD5.hexdigest(data), Digest::SHA1.hexdigest(data), Digest::SHA256.hexdigest(data), Digest::SHA512.hexdigest("")[0, 32]
p [data].pack("m0"), "aGk=".unpack1("m"), data.unpack("C4"), [1, 2].pack("s>l<").bytes, [3.5].pack("E").unpack1("E")
