srand(42);
print join(" ", map { int(rand(1000)) } 1..5), "\n";
