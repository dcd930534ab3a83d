r = Random.new(42)
p r.rand(100), r.rand, r.rand(1.0..2.0), r.bytes(4).bytesize
srand(1234)
p rand(10), [1, 2, 3, 4, 5].shuffle(random: Random.new(7)), [1, 2, 3, 4, 5].sample(2, random: Random.new(7))
p Random.new(5).rand(1..6), Array.new(5) { Random.new(3).rand(10) }.uniq.size
