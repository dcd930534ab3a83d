use strict; use warnings;
sub make_counter { my $n = shift // 0; return { inc => sub { ++$n }, get => sub { $n } } }
my $c = make_counter(5); $c->{inc}->() for 1..3; print $c->{get}->(), "\n";
my @subs; for my $i (1..3) { push @subs, sub { $i * 10 } } print join(",", map { $_->() } @subs), "\n";
my $x = "outer";
my $f = sub { $x }; $x = "changed"; print $f->(), "\n";
use feature "state";
sub next_id { state $id = 0; return ++$id } print next_id(), next_id(), next_id(), "\n";
my $compose = sub { my @f = reverse @_; return sub { my @a = @_; @a = $_->(@a) for @f; wantarray ? @a : $a[0] } };
print $compose->(sub { $_[0] + 1 }, sub { $_[0] * 2 })->(5), "\n";
