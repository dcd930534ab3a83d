use strict; use warnings;
use List::Util qw(sum sum0 max min maxstr minstr first reduce shuffle uniq uniqnum any all none pairs pairkeys product head tail);
my @n = (5, 3, 8, 1, 9, 2);
print sum(@n), " ", sum0(), " ", max(@n), " ", min(@n), " ", product(1..6), " ", maxstr(qw(apple pear fig)), " ", minstr(qw(b a c)), "\n";
print first { $_ > 4 } @n; print " ", reduce { $a * $b } 1..5; print "\n";
print join(",", uniq(qw(a b a c b))), " ", join(",", uniqnum(1, 1.0, 2, "2", 3)), "\n";
print((any { $_ == 8 } @n) ? "any" : "none", " ", (all { $_ > 0 } @n) ? "all" : "notall", " ", (none { $_ > 100 } @n) ? "none" : "some", "\n");
print join(",", pairkeys(a => 1, b => 2)), " ", join(",", map { "$_->[0]=$_->[1]" } pairs(x => 1, y => 2)), "\n";
print join(",", head(2, @n)), " ", join(",", tail(2, @n)), "\n";
