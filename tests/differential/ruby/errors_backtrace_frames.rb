# expected-difference: a rescued exception's backtrace (and full_message) ends with the sandbox driver's own frames (sandbox_driver.rb, eval), below the program's
def inner = raise(ArgumentError, "deep")
begin
  inner
rescue => e
  puts e.backtrace
end
