use strict; use warnings;
use feature "try"; no warnings "experimental::try";
sub risky { my $x = shift; die "negative\n" if $x < 0; return $x * 2 }
for my $v (3, -1) {
  try { print "ok: ", risky($v), "\n" }
  catch ($e) { print "caught: $e" }
}
