def try_it
  yield
rescue => e
  puts "#{e.class}: #{e.message.inspect}"
end
try_it { raise }
try_it { raise "msg" }
try_it { raise TypeError }
try_it { raise TypeError, "typed" }
try_it { raise TypeError.new("built") }
try_it { raise IOError.new }
try_it { raise Class.new(StandardError), "anon" rescue raise "anon class" }
try_it { fail "via fail" }
try_it { raise KeyError.new("k", receiver: {}, key: :x) }
e = ArgumentError.new("orig")
try_it { raise e }
try_it { raise e.exception("changed") }
p StandardError.new.message, ZeroDivisionError.ancestors.index(StandardError), Exception.new.full_message.class
