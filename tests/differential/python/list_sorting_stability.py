people = [("alice", 30), ("bob", 25), ("carol", 30), ("dave", 25), ("eve", 35)]
print(sorted(people, key=lambda p: p[1]))
print(sorted(people, key=lambda p: (-p[1], p[0])))
from operator import itemgetter, attrgetter
print(sorted(people, key=itemgetter(1, 0)))
words = ["banana", "Apple", "cherry", "apple", "Banana"]
print(sorted(words), sorted(words, key=str.lower), sorted(words, key=len))
import functools
print(sorted([3, 1, 2], key=functools.cmp_to_key(lambda a, b: b - a)))
