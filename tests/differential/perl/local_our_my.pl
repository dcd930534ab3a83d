use strict; use warnings;
our $g = "global";
sub show { print "g=$g\n" }
sub with_local { local $g = "localized"; show() }
with_local(); show();
my $x = 1; { my $x = 2; print "inner $x\n" } print "outer $x\n";
our @arr = (1, 2); { local @arr = (9); print "@arr\n" } print "@arr\n";
my %h = (a => 1); { local $h{a} = 2; print $h{a}, "\n" } print $h{a}, "\n";
