use strict; use warnings;
my %count;
$count{$_}++ for split /\s+/, "the quick brown the lazy the end quick";
for my $w (sort { $count{$b} <=> $count{$a} or $a cmp $b } keys %count) { print "$w:$count{$w} " }
print "\n";
my %groups;
push @{ $groups{ substr($_, 0, 1) } }, $_ for qw(apple avocado banana blueberry cherry);
print "$_: @{ $groups{$_} }\n" for sort keys %groups;
my %by_len;
$by_len{length $_} //= $_ for qw(aa b cc ddd e);
print join(",", map { "$_=$by_len{$_}" } sort keys %by_len), "\n";
