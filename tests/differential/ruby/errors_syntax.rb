# expected-difference: Ruby 3.4 and later (the sandbox's 4.0) parse with Prism, whose syntax error messages are entirely different from Ruby 3.1's parse.y messages
puts "not reached"
def broken(
  1 +
end
