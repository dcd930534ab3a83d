use strict; use warnings;
use JSON::PP;
my $v = decode_json('{"a": [1, 2.5, "x", null, true, false], "b": {"c": "\u00e9"}, "d": 1e3, "e": -0}');
print join(",", map { defined $_ ? $_ : "null" } @{ $v->{a} }), "\n";
print ref($v->{a}[4]), " ", $v->{a}[4] ? "true" : "false", " ", $v->{a}[5] ? "true" : "false", " ", $v->{d}, " ", $v->{e}, "\n";
print length($v->{b}{c}), " ", ord($v->{b}{c}), "\n";
my $j = JSON::PP->new->allow_nonref;
print $j->decode("123"), " ", $j->decode('"str"'), " ", scalar @{ $j->decode("[]") }, " ", $j->decode('{"a":1,"a":2}')->{a}, "\n";
print join(",", sort keys %{ decode_json('{"z":1,"y":2,"x":3}') }), "\n";
