use strict; use warnings;
my @v = (10, 2, 33, 4.5, -1, 0, 1e3, "7");
print join(" ", sort { $a <=> $b } @v), "\n";
print join(" ", sort @v), "\n";
print join(" ", sort { $b <=> $a } @v), "\n";
my %score = (alice => 90, bob => 85, carol => 90, dave => 70);
print join(" ", sort { $score{$b} <=> $score{$a} || $a cmp $b } keys %score), "\n";
my @sorted = map { $_->[0] } sort { $a->[1] <=> $b->[1] || $a->[0] cmp $b->[0] } map { [$_, length] } qw(pear fig banana kiwi apple);
print "@sorted\n";
