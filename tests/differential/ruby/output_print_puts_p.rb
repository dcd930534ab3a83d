print "a", "b", 1, nil, "\n"
puts [1, [2, [nil, 3]]], nil, []
puts
p
p 1, "two", :three, nil, 1.0, [1, "x"], 1..2
x = p("returned")
puts x
$stdout.print "no newline"
$stdout.write(" written\n")
$stdout << "chained " << 42 << "\n"
printf("%05.1f|%s\n", 3.14159, :sym)
putc "Z"
putc 10
pp({ "k" => 1 }.to_a)
