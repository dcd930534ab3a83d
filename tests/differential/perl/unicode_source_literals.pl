# expected-difference: the sandbox decodes the program's text from UTF-8 (as if it said `use utf8`), so a non-ASCII literal is characters (length("café") is 4) where perl reading a file sees bytes (5)
print length("café"), " ", length("日本"), "\n";
print "café" =~ /^\w+$/ ? "word\n" : "not a word\n";
