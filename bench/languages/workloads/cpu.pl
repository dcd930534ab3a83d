# CPU workload (the same program runs natively and in the engine): integer arithmetic in a
# loop and string appends into a hash.
my $s = 0;
my %h;
for my $i (0 .. 999_999) {
  $s += $i;
  $h{$i % 1000} .= 'x' if $i % 10 == 0;
}
$s + scalar(keys %h)
