use strict; use warnings;
my @lt = localtime(0);
print "$lt[5] $lt[4] $lt[3] $lt[2]\n";
print scalar(localtime(86400 * 365)), "\n";
