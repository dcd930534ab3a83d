use strict; use warnings; use feature "say";
print "a", "b", 1, "\n";
say "said";
say for 1..3;
my @l = (1, 2, 3);
{ local $, = "-"; local $\ = "!\n"; print @l; }
{ local $" = ":"; print "@l\n"; }
printf STDOUT "%s|%d\n", "fmt", 42;
print STDOUT "explicit stdout\n";
$| = 1;
print "no newline";
print " continued\n";
