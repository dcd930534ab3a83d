use strict; use warnings;
package MyError;
sub new { my ($class, %a) = @_; bless {%a}, $class }
sub throw { my $class = shift; die $class->new(@_) }
sub message { $_[0]{message} }
package NotFound; our @ISA = ("MyError");
package main;
for my $code (sub { NotFound->throw(message => "no page", code => 404) }, sub { MyError->throw(message => "generic") }, sub { die "string\n" }) {
  eval { $code->(); 1 } and next;
  my $e = $@;
  if (ref $e && $e->isa("NotFound")) { print "NotFound: ", $e->message, " $e->{code}\n" }
  elsif (ref $e && $e->isa("MyError")) { print "MyError: ", $e->message, "\n" }
  else { print "other: $e" }
}
local $@;
print "isa: ", NotFound->isa("MyError") ? 1 : 0, " can: ", NotFound->can("message") ? 1 : 0, "\n";
