# expected-difference: the sandbox runs Perl 5.42.0 (zeroperl), Debian ships Perl 5.36.0
print "$^V\n";
