use strict; use warnings;
my @s = ("aa", "Az", "zz", "a9", "Zz", "zZ9", "9");
for my $v (@s) { my $c = $v; $c++; print "$v -> $c\n" }
my $id = "id001"; $id++ for 1..3; print "$id\n";
print join(",", "aa" .. "ad"), " ", join(",", "x" .. "ab"), " ", join(",", "08" .. "11"), "\n";
