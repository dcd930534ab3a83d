%w[ǲ ß İ ı ﬁ ŉ Σ ς].each do |c|
  p [c, c.upcase, c.downcase, c.capitalize, c.swapcase, c.upcase(:ascii), c.length]
end
p "ÉCOLE".downcase(:fold), "ǅungla".swapcase
