use strict; use warnings;
my $text = "plain";
print "len ", length $text, "\n";
my @items = @$text;
