use strict; use warnings;
my @primes;
OUTER: for my $n (2..30) { for my $d (2..sqrt $n) { next OUTER if $n % $d == 0 } push @primes, $n }
print "@primes\n";
my $i = 0;
while (1) { $i++; next if $i % 2; last if $i > 8; print "$i;" } print "\n";
my $j = 10; $j -= 3 until $j < 0; print "$j\n";
do { $j++ } while ($j < 3); print "$j\n";
for (my $k = 0; $k < 3; $k++) { print "k$k " } print "\n";
print "$_ " for reverse 1..3; print "\n";
my @arr = (1..5); for my $e (@arr) { $e *= 2 } print "@arr\n";
my %h = (x => 1); print "unless\n" unless $h{y}; print "ternary: ", (5 > 3 ? "yes" : "no"), "\n";
