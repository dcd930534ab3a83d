use strict; use warnings;
print 5 & 3, " ", 5 | 3, " ", 5 ^ 3, " ", ~5 & 0xFF, " ", 1 << 10, " ", 1024 >> 3, "\n";
print 0xFFFFFFFF + 1, " ", 2 ** 32, " ", 4294967295 & 0xFFFF, " ", sprintf("%b", 1023), "\n";
{ use integer; print 7 / 2, " ", -7 / 2, " ", 10 % 3, "\n"; }
print int(2 ** 31), " ", 2 ** 31 - 1, " ", -(2 ** 31), " ", 9007199254740993, "\n";
