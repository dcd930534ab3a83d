use strict; use warnings;
srand(42);
my @r = map { int(rand(100)) } 1..5;
print scalar(@r), " ", (grep { $_ >= 0 && $_ < 100 } @r) == 5 ? "in range" : "out", "\n";
srand(7); my $a1 = rand(); srand(7); my $a2 = rand();
print $a1 == $a2 ? "reproducible\n" : "not reproducible\n";
