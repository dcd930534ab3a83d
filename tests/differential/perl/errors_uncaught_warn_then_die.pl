use strict; use warnings;
warn "first warning\n";
warn "second warning";
print STDOUT "stdout line\n";
my @a = (1, 2);
die "failed after ", scalar(@a), " items\n";
