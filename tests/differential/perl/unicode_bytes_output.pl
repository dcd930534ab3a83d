# expected-difference: the program's text reaches Perl decoded from UTF-8 and STDOUT and STDERR have the :utf8 layer, so bytes printed as they are (UTF-8 encoded by hand, or with \x escapes) come out encoded twice
use strict; use warnings;
print "raw utf8 bytes: caf\xc3\xa9 \xe2\x98\x83\n";
my $s = "caf\xc3\xa9";
print length($s), "\n";
{ use utf8; my $c = "café"; utf8::encode($c); print $c, " ", length($c), "\n"; }
