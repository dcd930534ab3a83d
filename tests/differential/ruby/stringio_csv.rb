require "stringio"
io = StringIO.new
io.puts "hello"
io.print "world", "\n"
io.printf("%d\n", 42)
p io.string, io.pos
io.rewind
p io.gets, io.read, io.eof?
in_io = StringIO.new("a\nb\nc")
p in_io.each_line.map(&:chomp), StringIO.new("x y").read(1)
