# expected-difference: STDOUT and STDERR have the :utf8 layer in the sandbox, so printing a wide character gives no "Wide character in print" warning
use strict; use warnings;
print "snowman: \x{2603}\n";
print "done\n";
