use strict; use warnings;
use bigint;
my $x = 2 ** 100;
print "$x\n", $x / 3, "\n", 25 ** 10, "\n";
