use strict; use warnings;
my $s = "  padded  \n";
chomp(my $c = $s);
(my $t = $c) =~ s/^\s+|\s+$//g;
print "[$c] [$t]\n";
my $x = "abc"; chop $x; print "$x\n";
my $line = "text\r\n"; $line =~ s/\r?\n\z//; print "[$line]\n";
my @lines = ("a\n", "b\n"); chomp @lines; print join(",", @lines), "\n";
print "[", join("][", map { s/^\s+//r } ("  x", " y ")), "]\n";
