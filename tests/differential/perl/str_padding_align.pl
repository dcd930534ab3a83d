use strict; use warnings;
for my $w (qw(a abc abcdef)) {
  printf "[%-5s] [%5s] [%s]\n", $w, $w, ("." x (6 - length $w)) . $w;
}
my @rows = (["name", "qty"], ["apple", 3], ["kiwi", 12]);
printf "%-8s%5s\n", @$_ for @rows;
print "0" x (5 - length "42") . "42", " ", sprintf("%05d", -42), " ", sprintf("%-6s|", "x"), "\n";
