use strict; use warnings;
my $s = "Contact: alice\@example.com, bob.smith\@mail.org; phone 555-1234 or 555-9876.";
my @emails = $s =~ /([\w.]+@[\w.]+\w)/g; print "@emails\n";
while ($s =~ /(\d{3})-(\d{4})/g) { print "$1/$2 at ", pos($s), "\n" }
if ($s =~ /(?<user>\w+)@(?<host>[\w.]+\w)/) { print "$+{user} $+{host} $& [$-[0],$+[0]] ", length($`), "\n" }
(my $t = $s) =~ s/\d/#/g; print "$t\n";
my $n = ($t = $s) =~ s/(\w+)@/<$1>@/g; print "$n: $t\n";
print join("|", split /[,;]\s*/, $s), "\n";
print "match\n" if "foobar" =~ /^foo/; print "no match\n" if "foobar" !~ /baz/;
my $r = "a.b.c" =~ tr/././; print "$r dots\n";
print "case-insensitive\n" if "HELLO" =~ /hello/i;
