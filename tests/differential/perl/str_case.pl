use strict; use warnings;
my $s = "Hello, World";
print uc($s), "\n", lc($s), "\n", ucfirst(lc("hELLO")), "\n", lcfirst("ABC"), "\n";
print join(" ", map { ucfirst } split / /, "hello big world"), "\n";
print "\U$s\E and \L$s\E and \u\LfOO\E\n";
print fc("HeLLo") eq fc("hello") ? "fc equal\n" : "fc differ\n" if $] >= 5.016;
