import base64, hashlib, binascii, hmac
data = b"The quick brown fox"
print(base64.b64encode(data), base64.b64decode(b"aGVsbG8="), base64.urlsafe_b64encode(b"\xfb\xff"), base64.b32encode(b"hi"), base64.b16encode(b"hi"))
print(hashlib.md5(data).hexdigest(), hashlib.sha1(data).hexdigest())
print(hashlib.sha256(data).hexdigest(), hashlib.sha512(b"").hexdigest()[:32])
print(hashlib.blake2b(data, digest_size=16).hexdigest(), hashlib.sha3_256(b"abc").hexdigest())
print(binascii.hexlify(b"\x01\xab"), bytes.fromhex("deadbeef"), b"\x01\xab".hex(":"), binascii.crc32(data))
print(hmac.new(b"key", data, "sha256").hexdigest())
