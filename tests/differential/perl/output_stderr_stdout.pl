use strict; use warnings;
print "out 1\n";
print STDERR "err 1\n";
print "out 2\n";
printf STDERR "err %d\n", 2;
warn "err 3\n";
print STDERR "partial ";
print STDERR "err line\n";
