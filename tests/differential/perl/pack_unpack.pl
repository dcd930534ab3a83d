use strict; use warnings;
my $bin = pack("NnC", 1, 258, 255);
print length($bin), " ", join(",", unpack("NnC", $bin)), " ", unpack("H*", $bin), "\n";
print join(",", unpack("C*", "AB")), " ", pack("C*", 72, 105), " ", pack("A5", "ab") . "|", " ", unpack("A5", "ab   ") . "|", "\n";
print unpack("%32C*", "abc"), " ", join(",", unpack("(A2)*", "aabbcc")), " ", unpack("b8", "A"), " ", unpack("B8", "A"), "\n";
print join(",", unpack("vV", pack("vV", 513, 67305985))), " ", length(pack("x5")), " ", unpack("H4", pack("n", 0xBEEF)), "\n";
my @fields = unpack("A3 x2 A4", "abc..defg"); print "@fields\n";
print join(",", unpack("U*", "\x{263A}A")), " ", sprintf("%vd", "1.2.3"), "\n";
