use strict; use warnings;
for my $v (0.1, 0.2, 0.1 + 0.2, 1/3, 2/3, 1e16, 1e15, 1e-4, 1e-5, 123456789.123456789, 1.0, -0.0, 100, 1e20, 1.5e-7, 5e-324) {
  printf "%s %.17g %.3f %e %g\n", $v, $v, $v, $v, $v;
}
sub commify { my $n = reverse shift; $n =~ s/(\d{3})(?=\d)/$1,/g; return scalar reverse $n }
print commify(1234567), " ", commify(999), " ", commify(1000), "\n";
printf "%.2f %.2f %.2f %.2f\n", 2.675, 1.005, 0.125, 0.375;
