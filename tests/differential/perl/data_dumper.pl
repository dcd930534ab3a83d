use strict; use warnings;
use Data::Dumper;
$Data::Dumper::Sortkeys = 1;
$Data::Dumper::Indent = 1;
print Dumper({ b => [1, "two", 3.5], a => { x => undef, y => \"ref" }, c => "str" });
local $Data::Dumper::Terse = 1;
local $Data::Dumper::Indent = 0;
print Dumper([1, { k => "v" }, "a'b"]), "\n";
print Dumper("x\ny"), "\n";
