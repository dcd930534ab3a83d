print "before\n";
die "clean message\n";
