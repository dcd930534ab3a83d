use strict; use warnings;
my @w = qw(banana Apple cherry apple Banana zebra);
print join(" ", sort @w), "\n";
print join(" ", sort { lc($a) cmp lc($b) or $a cmp $b } @w), "\n";
print join(" ", sort { length($a) <=> length($b) or $a cmp $b } @w), "\n";
print join(" ", reverse sort { $a <=> $b } 10, 2, 33, 4), "\n";
print "a" lt "b" ? 1 : 0, "Z" lt "a" ? 1 : 0, "10" == 10.0 ? 1 : 0, "abc" eq "ab" . "c" ? 1 : 0, "\n";
print "b" cmp "a", " ", 1 <=> 2, " ", 2 <=> 2, " ", "10" cmp "9", " ", 10 <=> 9, "\n";
