use strict; use warnings;
package Vec2;
use overload '+' => \&add, '-' => sub { Vec2->new($_[0]{x} - $_[1]{x}, $_[0]{y} - $_[1]{y}) }, '*' => \&mul, '""' => \&str, '==' => sub { "$_[0]" eq "$_[1]" }, 'bool' => sub { 1 };
sub new { my ($c, $x, $y) = @_; bless { x => $x, y => $y }, $c }
sub add { my ($a, $b) = @_; Vec2->new($a->{x} + $b->{x}, $a->{y} + $b->{y}) }
sub mul { my ($a, $k, $swap) = @_; Vec2->new($a->{x} * $k, $a->{y} * $k) }
sub str { my $s = shift; "($s->{x}, $s->{y})" }
package main;
my $v = Vec2->new(1, 2);
my $w = Vec2->new(3, 4);
print $v + $w, " ", $w - $v, " ", $v * 3, " ", 3 * $v, " ", ($v == Vec2->new(1, 2) ? "equal" : "differ"), "\n";
print "interpolated: $v\n";
