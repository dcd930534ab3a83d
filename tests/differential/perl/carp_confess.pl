use strict; use warnings;
use Carp qw(confess cluck longmess);
sub level2 { confess "deep failure" }
sub level1 { level2(@_) }
eval { level1("arg", 42) };
print "confess: $@";
sub where { return (caller(0))[3] . " from line " . (caller(0))[2] }
print where(), "\n";
sub outer_caller { inner_caller() }
sub inner_caller { my @c = caller(1); return scalar(@c) ? "$c[3]" : "none" }
print outer_caller(), "\n";
my @top = caller(); print "top-level caller: ", scalar(@top), "\n";
