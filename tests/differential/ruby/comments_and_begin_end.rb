# expected-difference: END blocks run when the process exits, and a sandbox session does not exit after a run, so END never runs
=begin
a block comment
=end
x = 1 # trailing comment
p x
BEGIN { puts "BEGIN block" }
END { puts "END block" }
puts "main"
