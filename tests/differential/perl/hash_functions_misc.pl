use strict; use warnings;
my %h = map { $_ => ord($_) } "a".."e";
my @big = grep { $h{$_} > 99 } sort keys %h; print "@big\n";
delete @h{qw(a b)}; print join(",", sort keys %h), "\n";
my %merged = (%h, f => 102, c => 0); print join(",", map { "$_=$merged{$_}" } sort keys %merged), "\n";
my $href = \%merged; print scalar(keys %$href), " ", exists $href->{f} ? 1 : 0, " ", join(",", sort { $a <=> $b } values %$href), "\n";
my ($min_key) = sort { $merged{$a} <=> $merged{$b} } keys %merged; print "$min_key\n";
my %set = map { $_ => 1 } qw(x y z); my @common = grep { $set{$_} } qw(a x z q); print "@common\n";
