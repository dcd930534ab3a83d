use strict; use warnings;
my @t = gmtime(1709214330);
print join(",", @t), "\n";
printf "%04d-%02d-%02d %02d:%02d:%02d wday=%d yday=%d\n", $t[5] + 1900, $t[4] + 1, $t[3], $t[2], $t[1], $t[0], $t[6], $t[7];
print scalar(gmtime(0)), "\n", scalar(gmtime(1234567890)), "\n", scalar(gmtime(2**31)), "\n";
my @days = qw(Sun Mon Tue Wed Thu Fri Sat);
print $days[(gmtime(86400 * 4))[6]], "\n";
