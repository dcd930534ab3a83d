use strict; use warnings;
my $buf = "";
open(my $out, ">", \$buf) or die;
print $out "line one\n";
printf $out "%s %d\n", "line", 2;
close $out;
print "buffer: $buf";
open(my $in, "<", \"a\nbb\nccc\n") or die;
my @lines = <$in>; chomp @lines;
print scalar(@lines), " [@lines]\n";
open($in, "<", \"x\ny\n"); while (my $l = <$in>) { chomp $l; print "$.: $l\n" }
local $/ = undef; open($in, "<", \"all\nin\none"); my $all = <$in>; print length($all), "\n";
