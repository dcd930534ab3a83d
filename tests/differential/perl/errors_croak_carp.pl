use strict; use warnings;
use Carp qw(croak carp confess);
sub check { my $n = shift; croak "bad value '$n'" if $n < 0; $n }
eval { check(-1) }; print "croak: $@";
local $SIG{__WARN__} = sub { print "warn handler: $_[0]" };
sub soft { carp "soft warning" }
soft();
warn "plain warn\n";
warn "warn with line";
