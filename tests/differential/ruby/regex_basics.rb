s = "Contact: alice@example.com, bob.smith@mail.org; phone 555-1234 or 555-9876."
p s.scan(/[\w.]+@[\w.]+\w/), s.scan(/(\d{3})-(\d{4})/)
m = s.match(/(?<user>\w+)@(?<host>[\w.]+\w)/)
p m[0], m[:user], m["host"], m.begin(0), m.end(:host), m.pre_match.length, m.names, m.captures, m.named_captures.to_a
p s =~ /phone/, $~[0], s !~ /xyz/, s.match?(/\d/), s[/\d+/], s[/(\d+)-(\d+)/, 2]
p s.gsub(/\d/, "#"), s.sub(/(\w+)@/) { "<#{$1}>@" }, s.split(/[,;]\s*/), "a b".split(/(\s)/)
if "2024-03-15" =~ /(\d+)-(\d+)-(\d+)/
  p [$1, $2, $3].map(&:to_i), $~.pre_match, Regexp.last_match(2)
end
