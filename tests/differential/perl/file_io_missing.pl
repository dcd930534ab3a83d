# expected-difference: a stateless run has no /workspace, so opening a relative path is refused with EACCES (Permission denied) instead of ENOENT
use strict; use warnings;
my $ok = open(my $fh, "<", "no_such_file.txt");
print $ok ? "opened\n" : "open failed: $!\n";
print -e "no_such_file.txt" ? "exists\n" : "absent\n";
