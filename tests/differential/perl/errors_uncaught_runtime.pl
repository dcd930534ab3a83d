use strict; use warnings;
my %config = (host => "localhost");
print "host: $config{host}\n";
my $port = $config{port};
my $n = 10 / ($port // 0);
