# expected-difference: Debian's Ruby 3.1 puts error_highlight's code snippet and did_you_mean's suggestion into the message itself; Ruby 3.4 and later (the sandbox's 4.0) keep them in detailed_message, and the sandbox reports the message
def greet(name) = "Hello, #{name}"
puts greet("x")
puts gret("y")
