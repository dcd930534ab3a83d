# expected-difference: at_exit handlers run when the process exits, and a sandbox session does not exit after a run, so they never run
puts "start"
at_exit { puts "at_exit ran" }
puts "end"
