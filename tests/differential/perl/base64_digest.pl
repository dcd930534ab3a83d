use strict; use warnings;
use MIME::Base64 qw(encode_base64 decode_base64);
use Digest::MD5 qw(md5_hex);
use Digest::SHA qw(sha1_hex sha256_hex hmac_sha256_hex sha512_hex);
my $data = "The quick brown fox";
print encode_base64($data), encode_base64($data, ""), "\n", decode_base64("aGVsbG8="), "\n";
print md5_hex($data), "\n", sha1_hex($data), "\n", sha256_hex($data), "\n", substr(sha512_hex(""), 0, 32), "\n";
print hmac_sha256_hex($data, "key"), "\n";
