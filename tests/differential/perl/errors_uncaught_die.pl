print "before\n";
die "something went wrong";
