use strict; use warnings;
package Counter; sub new { bless { n => 0 }, shift } sub inc { $_[0]{n}++ }
package main;
my $c = Counter->new;
$c->inc;
print "n = $c->{n}\n";
$c->dec;
