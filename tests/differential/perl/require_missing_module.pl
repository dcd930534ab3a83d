# expected-difference: the message lists @INC, which is zeroperl's (/zeroperl/lib/...) in the sandbox and Debian's (/etc/perl, /usr/share/perl5, ...) natively
use strict; use warnings;
eval { require No::Such::Module; 1 } or print "error: $@";
