use strict; use warnings;
my @people = (["alice", 30], ["bob", 25], ["carol", 30], ["dave", 25], ["eve", 35]);
print join(" ", map { $_->[0] } sort { $a->[1] <=> $b->[1] } @people), "\n";
print join(" ", map { $_->[0] } sort { $b->[1] <=> $a->[1] or $a->[0] cmp $b->[0] } @people), "\n";
my @st = map { $_->[1] } sort { $a->[0] <=> $b->[0] } map { [length($_), $_] } qw(ccc a bb dddd e);
print "@st\n";
print join(" ", sort { $a <=> $b } (10, 9, 100, 1.5, -3)), " ", join(" ", sort (10, 9, 100, 1.5, -3)), "\n";
