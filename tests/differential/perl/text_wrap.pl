use strict; use warnings;
use Text::Wrap qw(wrap $columns);
$columns = 30;
print wrap("", "  ", "The quick brown fox jumps over the lazy dog. " x 3), "\n";
use Text::ParseWords qw(shellwords quotewords parse_line);
print join("|", shellwords(q{a 'b c' "d e" f\ g})), "\n";
print join("|", parse_line(",", 0, q{x,"y,z",w})), "\n";
use Text::Abbrev; my %a = abbrev(qw(list load)); print join(",", sort keys %a), "\n";
