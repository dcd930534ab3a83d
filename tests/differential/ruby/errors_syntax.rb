# expected-difference: Ruby 3.4 parses with Prism, whose syntax error messages are entirely different from Ruby 3.1's parse.y messages
puts "not reached"
def broken(
  1 +
end
