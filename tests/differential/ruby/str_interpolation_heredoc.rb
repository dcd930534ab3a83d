name = "world"
x = 7
puts "Hello, #{name}! #{x * 6} #{[1, 2].map { |v| v * 2 }}"
puts 'single #{name}'
text = <<~EOS
  Indented heredoc
    keeps relative indent
  name: #{name}
EOS
puts text
raw = <<~'RAW'
  no #{interp} here\n
RAW
puts raw
puts "tab\tnl\\n", "a" "b" 'c'
