use strict; use warnings;
sub ctx { return wantarray ? "list" : defined(wantarray) ? "scalar" : "void" }
my @l = ctx(); my $s = ctx(); print "$l[0] $s\n";
sub minmax { my @s = sort { $a <=> $b } @_; return ($s[0], $s[-1]) }
my ($mn, $mx) = minmax(5, 3, 9); my $last = (minmax(5, 3, 9))[1]; my $count = () = minmax(1, 2);
print "$mn $mx $last $count\n";
sub named { my %o = (size => 1, @_); join(",", map { "$_=$o{$_}" } sort keys %o) }
print named(color => "red"), "\n";
sub modify { $_[0] = "changed" } my $v = "orig"; modify($v); print "$v\n";
my $sq = sub { $_[0] ** 2 }; print $sq->(7), " ", &$sq(3), " ", &{$sq}(2), "\n";
sub fact { my $n = shift; $n <= 1 ? 1 : $n * fact($n - 1) } print fact(20), "\n";
use feature "signatures"; no warnings "experimental::signatures";
sub add($x, $y = 10, @rest) { $x + $y + @rest }
print add(1), " ", add(1, 2), " ", add(1, 2, 3, 4), "\n";
