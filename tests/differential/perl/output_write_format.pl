use strict; use warnings;
our ($name, $qty);
format STDOUT_TOP =
Name       Qty
---------- ---
.
format STDOUT =
@<<<<<<<<< @>>
$name,     $qty
.
for (["apple", 3], ["banana", 12], ["kiwi", 100]) { ($name, $qty) = @$_; write; }
