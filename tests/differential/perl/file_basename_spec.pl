use strict; use warnings;
use File::Basename qw(basename dirname fileparse);
use File::Spec;
my $p = "/usr/local/lib/perl5/Module/Name.pm";
print basename($p), " ", dirname($p), " ", join("|", fileparse($p, qr/\.[^.]*/)), "\n";
print File::Spec->catfile("a", "b", "c.txt"), " ", File::Spec->catdir("x", "y"), " ", File::Spec->canonpath("/a/./b//c/"), "\n";
print File::Spec->file_name_is_absolute("/x") ? 1 : 0, " ", join(",", File::Spec->splitdir("/a/b/c")), " ", File::Spec->abs2rel("/a/b/c", "/a"), "\n";
