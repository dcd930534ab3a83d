use strict; use warnings;
my @tests = (
  sub { my $x = 1 / 0 },
  sub { my $x = 5 % 0 },
  sub { my $h = "str"; no strict "refs"; my @a = @{"main::nothing"}; die "symbolic ok\n" },
  sub { my $r = "notref"; my $v = $r->{key} },
  sub { my $r = {}; my @a = @$r },
  sub { my $r = []; my %h = %$r },
  sub { undefined_function() },
  sub { my $obj = bless {}, "Foo"; $obj->missing },
  sub { Foo::Bar->new },
  sub { my $c = undef; $c->() },
  sub { sqrt(-1) },
  sub { log(0) },
  sub { my @a = (1) x -1; die "neg repeat ok\n" },
  sub { sprintf("%z", 1); die "bad format ok\n" },
  sub { my $x = "abc"; substr($x, 10, 1) = "x" },
  sub { local $SIG{__WARN__} = sub { die "warned: $_[0]" }; my $u; my $s = "x" . $u },
  sub { my $s = "x"; $s =~ /$s(/ },
);
for my $t (@tests) {
  eval { $t->(); 1 } and next;
  print "error: $@";
}
