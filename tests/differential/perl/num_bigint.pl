use strict; use warnings;
use Math::BigInt;
my $a = Math::BigInt->new(2)->bpow(200)->badd(12345);
my $b = Math::BigInt->new(3)->bpow(150);
print "$a\n$b\n";
print $a->copy->bmul($b)->bmod(Math::BigInt->new(10)->bpow(20)), "\n";
print $a->copy->bdiv($b), " ", Math::BigInt->new(25)->bfac, " ", Math::BigInt->new("0xff"), "\n";
print Math::BigInt->new(100)->bsqrt, " ", length(Math::BigInt->new(7)->bpow(777)->bstr), " ", Math::BigInt->new(-17)->bmod(5), "\n";
print Math::BigInt->new("12345678901234567890")->as_hex, " ", Math::BigInt->bgcd(48, 18), " ", Math::BigInt->blcm(4, 6), "\n";
