import random
random.seed(12345)
print(random.random(), random.randint(1, 100), random.choice("abcdef"), random.uniform(1, 2))
r = random.Random(42)
items = list(range(10))
r.shuffle(items)
print(items, r.sample(range(100), 5), r.randrange(0, 100, 5))
print(r.choices("xyz", weights=[1, 2, 3], k=6), r.getrandbits(32), round(r.gauss(0, 1), 12))
