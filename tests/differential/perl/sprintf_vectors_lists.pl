use strict; use warnings;
my @vals = (1, 22, 333);
print sprintf("%-5s|" x @vals, @vals), "\n";
print join(" ", map { sprintf "%03d", $_ } @vals), "\n";
print sprintf("%s-%s", split(/,/, "a,b")), "\n";
print sprintf("%.2f%%", 45.678), " ", sprintf("%5.1f%%", 5), "\n";
print sprintf("%x", 3735928559), " ", sprintf("%o", 511), " ", sprintf("%E", 0.000123), " ", sprintf("%#.3g", 1), "\n";
