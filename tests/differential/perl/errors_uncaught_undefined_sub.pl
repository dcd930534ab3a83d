use strict; use warnings;
print "calling\n";
process_data(1);
