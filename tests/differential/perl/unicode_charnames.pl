# expected-difference: the sandbox's Perl (zeroperl) ships without lib/unicore/Name.pm, so \N{NAME} and charnames fail to compile
use strict; use warnings; use utf8;
binmode STDOUT, ":utf8";
print "\N{GREEK SMALL LETTER ALPHA} \N{SNOWMAN}\n";
