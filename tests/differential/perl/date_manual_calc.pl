use strict; use warnings;
sub is_leap { my $y = shift; ($y % 4 == 0 && $y % 100 != 0) || $y % 400 == 0 }
sub days_in_month { my ($y, $m) = @_; return (31, is_leap($y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[$m - 1] }
print join(" ", map { is_leap($_) ? "$_:L" : "$_:-" } 1900, 2000, 2023, 2024), "\n";
print join(" ", map { days_in_month(2024, $_) } 1..12), "\n";
sub dow { my ($y, $m, $d) = @_; my @t = (0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4); $y-- if $m < 3; ($y + int($y/4) - int($y/100) + int($y/400) + $t[$m-1] + $d) % 7 }
print join(" ", map { (qw(Sun Mon Tue Wed Thu Fri Sat))[dow(@$_)] } [2024, 2, 29], [2000, 1, 1], [1969, 7, 20]), "\n";
