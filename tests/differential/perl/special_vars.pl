use strict; use warnings;
print "0: ", ($0 ne "" ? "set" : "empty"), "\n";
print "\$;: ", length($;), " \$,: ", defined($,) ? "def" : "undef", "\n";
my @a = (1, 2, 3); { local $" = "+"; print "@a\n"; }
$_ = "topic"; print length, " ", uc, "\n";
for (qw(a b)) { print; } print "\n";
my $str = "x=1"; $str =~ /(\w)=(\d)/; print "$1 $2 $& \n";
print "time is a number\n" if time =~ /^\d+$/;
print "pid set\n" if $$ =~ /^\d+$/;
