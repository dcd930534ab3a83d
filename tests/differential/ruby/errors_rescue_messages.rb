tests = [
  -> { 1 / 0 },
  -> { [].fetch(5) },
  -> { { a: 1 }.fetch(:b) },
  -> { Integer("x1") },
  -> { Float("bad") },
  -> { "a" + 1 },
  -> { 1 + "a" },
  -> { 1 + nil },
  -> { raise "plain" },
  -> { raise ArgumentError },
  -> { [1, 2].first(-1) },
  -> { "abc".center },
  -> { [3, "a"].sort },
  -> { "x" * -1 },
  -> { loop { raise StopIteration, "done" }; raise "after loop" },
  -> { throw :nothing },
  -> { "é".encode("ASCII") },
  -> { 2**"a" },
  -> { [].freeze << 1 },
]
tests.each do |t|
  t.call
  puts "no error"
rescue StandardError => e
  puts "#{e.class}: #{e.message}"
end
