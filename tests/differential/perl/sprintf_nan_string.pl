my $inf = 9**9**9; my $nan = $inf - $inf;
print "$nan\n";
