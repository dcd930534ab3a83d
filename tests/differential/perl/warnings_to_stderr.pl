use strict; use warnings;
print "start\n";
warn "explicit warning\n";
my $u;
my $v = "x" . $u;
print "end\n";
