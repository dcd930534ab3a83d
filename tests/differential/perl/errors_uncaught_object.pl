use strict; use warnings;
package HttpError;
use overload '""' => sub { "HTTP $_[0]{code}: $_[0]{reason}" }, fallback => 1;
sub new { my ($c, %a) = @_; bless {%a}, $c }
package main;
print "throwing an object\n";
die HttpError->new(code => 500, reason => "internal");
