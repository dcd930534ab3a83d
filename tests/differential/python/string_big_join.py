parts = [str(i) for i in range(300)]
s = ",".join(parts)
print(len(s), s[:40], s[-20:])
print(sum(len(p) for p in parts), s.count(","), "299" in s)
print("x" * 50, "ab" * 3 + "c")
lines = "\n".join(f"row {i:03d}: {'#' * (i % 10)}" for i in range(12))
print(lines)
