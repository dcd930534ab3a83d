use strict; use warnings;
use Time::Local qw(timegm timelocal);
print timegm(0, 0, 0, 1, 0, 2024), " ", timegm(30, 45, 13, 29, 1, 2024), " ", timegm(59, 59, 23, 31, 11, 1999), "\n";
print timelocal(0, 0, 0, 1, 0, 2000), "\n";
my $e = eval { timegm(0, 0, 0, 30, 1, 2023); 1 } ? "no error" : "error";
print "$e\n";
my $d = timegm(0, 0, 0, 25, 11, 2024) - timegm(0, 0, 0, 1, 0, 2024);
print $d / 86400, " days\n";
