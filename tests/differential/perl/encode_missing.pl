# expected-difference: the sandbox's Perl (zeroperl) ships without Storable, which Encode needs, so `use Encode` fails; utf8::encode and utf8::decode work
use strict; use warnings;
use Encode qw(encode decode);
print length(encode("UTF-8", "\x{e9}")), "\n";
