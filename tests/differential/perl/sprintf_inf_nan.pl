use strict; use warnings;
my $inf = 9**9**9; my $nan = $inf - $inf;
print $inf, " ", -$inf, " ", ($nan != $nan ? "nan-ne" : "nan-eq"), " ", $inf + 1 == $inf ? "inf-stable" : "", "\n";
printf "%f %e %g %d\n", $inf, -$inf, $inf, 42;
print 0 * -1, " ", -0.0, " ", sprintf("%.1f", -0.0), "\n";
