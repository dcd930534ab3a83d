use strict; use warnings; use utf8;
use Unicode::Normalize;
binmode STDOUT, ":utf8";
my $s1 = "café"; my $s2 = "cafe\x{301}";
print $s1 eq $s2 ? "eq" : "ne", " ", length($s1), " ", length($s2), " ", NFC($s2) eq $s1 ? "nfc-eq" : "nfc-ne", "\n";
for my $f ([NFD => \&NFD], [NFC => \&NFC], [NFKC => \&NFKC], [NFKD => \&NFKD]) {
  print $f->[0], " ", join(" ", map { sprintf "U+%04X", ord } split //, $f->[1]->("ﬁ é")), "\n";
}
(my $plain = NFD("Crème Brûlée")) =~ s/\p{Mn}//g; print "$plain\n";
