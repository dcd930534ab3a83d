use strict; use warnings;
use Carp;
sub validate { croak "invalid input: $_[0]" unless $_[0] =~ /^\d+$/; $_[0] }
print validate("42"), "\n";
print validate("4x2"), "\n";
