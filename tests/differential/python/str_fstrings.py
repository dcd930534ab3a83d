x, y = 7, 3.5
name = "world"
print(f"{x} + {y} = {x + y}")
print(f"{name!r:>10}|{name:<10}|")
print(f"{x=}, {y=:.2f}, {name=}")
print(f"{x:05d} {y:8.3f} {x*1000:,} {255:#06x}")
width = 12
print(f"[{name:^{width}}]", f"{'nested'!s:>{width}}")
print(f"{{literal}} {3.0:g} {1/3:.5}")
