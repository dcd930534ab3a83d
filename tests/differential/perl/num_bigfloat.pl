use strict; use warnings;
use Math::BigFloat;
Math::BigFloat->accuracy(40);
print Math::BigFloat->new(1)->bdiv(7), "\n";
print Math::BigFloat->new(2)->bsqrt, "\n";
Math::BigFloat->accuracy(undef);
print Math::BigFloat->new("0.1")->badd("0.2"), " ", Math::BigFloat->new("2.675")->bfround(-2), " ", Math::BigFloat->new("1e3"), "\n";
