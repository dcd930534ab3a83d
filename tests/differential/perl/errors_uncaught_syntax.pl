# expected-difference: zeroperl's Perl 5.42 reports this syntax error "at EOF" where Debian's Perl 5.36 reports it "near \"+ ;\""
use strict; use warnings;
print "not reached\n";
my $x = (1 + ;
