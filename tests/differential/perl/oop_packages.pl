use strict; use warnings;
package Animal;
sub new { my ($class, %args) = @_; my $self = { name => $args{name} || "generic", sound => "..." }; return bless $self, $class }
sub name { $_[0]{name} }
sub speak { my $self = shift; sprintf "%s says %s", $self->name, $self->sound }
sub sound { $_[0]{sound} }
package Dog;
use parent -norequire, "Animal";
sub new { my ($class, %args) = @_; my $self = Animal::new($class, %args); $self->{tricks} = []; $self }
sub sound { "Woof" }
sub add_trick { my ($self, $t) = @_; push @{ $self->{tricks} }, $t; return $self }
sub tricks { @{ $_[0]{tricks} } }
package main;
my $d = Dog->new(name => "Rex");
$d->add_trick("sit")->add_trick("roll");
print $d->speak, "\n", Animal->new->speak, "\n", join(",", $d->tricks), "\n";
print ref($d), " ", $d->isa("Animal") ? 1 : 0, " ", Dog->can("speak") ? 1 : 0, " ", $d->can("fly") ? 1 : 0, " ", UNIVERSAL::isa($d, "HASH") ? 1 : 0, "\n";
my $m = "speak"; print $d->$m(), "\n";
print Dog->SUPER::can("new") ? "super ok\n" : "no\n";
