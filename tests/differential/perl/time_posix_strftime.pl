# expected-difference: the sandbox's Perl (zeroperl) ships without POSIX, so `use POSIX` (strftime, floor, ceil, fmod) fails at compile time
use strict; use warnings;
use POSIX qw(strftime floor ceil);
print strftime("%Y-%m-%d %H:%M:%S", gmtime(1709214330)), " ", floor(-2.5), " ", ceil(-2.5), "\n";
