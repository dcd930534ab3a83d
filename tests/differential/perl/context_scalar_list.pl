use strict; use warnings;
my @a = (3, 1, 2);
my $n = @a; my ($f) = @a; my $l = (4, 5, 6)[-1];
print "$n $f $l ", scalar(@a), " ", scalar(() = (1, 2, 3, 4)), " ", "@a" . "", " ", $#a + 1, "\n";
my $str = "@a[0..1]"; print "$str\n";
my $cnt = () = "a,b,c" =~ /,/g; print "$cnt\n";
my @sorted = sort @a; my $rev = reverse("ab", "cd"); print "@sorted $rev\n";
my %h = (a => 1, b => 2); my $pairs = () = %h; print "$pairs\n";
print "list in bool: ", ((() = (0)) ? "true" : "false"), "\n";
