$stderr.puts "warning: about to fail"
warn "second warning"
$stdout.puts "some output"
raise IndexError, "index 10 outside of array"
