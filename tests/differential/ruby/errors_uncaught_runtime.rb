puts "before"
raise "something went wrong"
