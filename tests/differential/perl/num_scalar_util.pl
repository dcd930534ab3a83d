use strict; use warnings;
use Scalar::Util qw(looks_like_number blessed reftype dualvar readonly weaken refaddr);
for my $v ("42", "4.2e3", "abc", "0x10", " 12 ", "-1", "Inf", "NaN", "1_000", "") {
  printf "%-6s %s\n", "'$v'", looks_like_number($v) ? "num" : "not";
}
my $obj = bless {}, "My::Class";
print blessed($obj), " ", reftype($obj), " ", (blessed({}) // "undef"), " ", reftype([]), " ", reftype(\1), " ", reftype(sub {}), "\n";
my $d = dualvar(5, "five"); print $d + 0, " $d\n";
