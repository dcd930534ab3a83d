use strict; use warnings;
use JSON::PP;
for my $bad ('{"a": 1,}', '[1, 2', "{'a': 1}", '', 'tru', '{"a" 1}') {
  my $r = eval { decode_json($bad); 1 };
  my $err = $@; $err =~ s/ at \S+ line \d+\.\n\z//;
  print "[$bad] -> $err\n" unless $r;
}
