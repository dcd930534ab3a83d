use strict; use warnings;
my $name = "world";
my @list = (1, 2, 3);
my %h = (k => "v");
print "Hello, $name! @list $list[1] $h{k} @{[ scalar @list ]} ${\ uc $name}\n";
print 'single $name\n', "\n";
print <<"END";
Heredoc for $name
  indented @list
END
print <<'RAW';
no $interp here\n
RAW
print <<~EOT;
    indented heredoc
      keeps relative
    done
    EOT
print "tab\there\\n \x41\x{263A} \101 \e[0m|\n" =~ s/\x{263A}/smiley/r;
