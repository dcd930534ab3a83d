use strict; use warnings;
package Temp;
for my $f (qw(celsius label)) { no strict "refs"; *{"Temp::$f"} = sub { my $s = shift; $s->{$f} = shift if @_; $s->{$f} } }
sub new { my ($c, %a) = @_; bless {%a}, $c }
sub fahrenheit { $_[0]->celsius * 9 / 5 + 32 }
sub DESTROY { print "DESTROY $_[0]{label}\n" }
package main;
{
  my $t = Temp->new(celsius => 100, label => "boiling");
  print $t->fahrenheit, " ", $t->label, "\n";
  $t->celsius(0);
  print $t->fahrenheit, "\n";
}
print "after scope\n";
