a = [[1, 2], { k: [3] }]
s = a.dup
d = Marshal.load(Marshal.dump(a))
a[0] << 9
a[1][:k] << 8
p s[0], d[0], s[1][:k], d[1][:k]
f = "frozen".freeze
p f.frozen?, f.dup.frozen?, f.clone.frozen?, f.clone(freeze: false).frozen?
h = { a: 1 }.freeze
begin
  h[:b] = 2
rescue => e
  p e.class
end
