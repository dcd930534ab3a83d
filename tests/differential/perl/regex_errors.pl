use strict; use warnings;
for my $pat ("(", "[a-", "a{2,1}", "*a", "(?<n>a)\\k<m>") {
  my $ok = eval { my $re = qr/$pat/; 1 };
  my $e = $@; $e =~ s/ at \(sandbox\) line \d+\.\n\z//;
  print $ok ? "ok $pat\n" : "[$pat] $e\n";
}
