use strict;
my $declared = 1;
$undeclared = 2;
print "not reached\n";
