use strict; use warnings;
for my $v (0.5, 1.5, 2.5, -0.5, -1.5, 0.125, 2.675, 1.005, 1234.5678) {
  printf "%s %.0f %.1f %.2f %d %s\n", $v, $v, $v, $v, int($v), int($v + ($v < 0 ? -0.5 : 0.5));
}
