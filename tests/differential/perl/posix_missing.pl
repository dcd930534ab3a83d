# expected-difference: the sandbox's Perl (zeroperl) ships without the POSIX module
use strict; use warnings;
use POSIX ();
print POSIX::floor(-2.5), "\n";
