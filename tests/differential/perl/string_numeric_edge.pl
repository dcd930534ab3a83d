use strict; no warnings;
print "1" + "1", " ", "1" . "1", " ", "3" * "4", " ", "2" ** "3", " ", "10" / "4", " ", "abc" x 2, "\n";
print "0 but true" + 5, " ", "0E0" ? "true" : "false", " ", "0.0" ? "true" : "false", " ", "00" ? "true" : "false", " ", "0" ? "true" : "false", "\n";
print 1 <=> "1.0", " ", "1" eq "1.0" ? "eq" : "ne", " ", 10 == 10.0 ? "==" : "!=", " ", "inf" + 0, " ", "0x10" + 0, "\n";
my @empty; print scalar(@empty) ? "t" : "f", " ", defined(undef) ? "d" : "u", " ", (undef // "dflt"), " ", (0 || "or"), " ", (0 // "dor"), "\n";
