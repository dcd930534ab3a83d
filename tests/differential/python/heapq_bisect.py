import heapq, bisect
h = [5, 1, 8, 3, 9, 2]
heapq.heapify(h)
print(h[0], [heapq.heappop(h) for _ in range(3)], h)
print(heapq.nlargest(3, [4, 1, 7, 3, 8, 5]), heapq.nsmallest(2, ["pear", "fig", "apple"], key=len))
print(list(heapq.merge([1, 4, 7], [2, 5, 8], [3, 6])))
a = [1, 2, 4, 4, 8]
print(bisect.bisect_left(a, 4), bisect.bisect_right(a, 4), bisect.bisect(a, 5))
bisect.insort(a, 3); print(a)
grades = "FDCBA"
print([grades[bisect.bisect([60, 70, 80, 90], s)] for s in [33, 99, 77, 70, 89, 90, 100]])
