print(string.format("[%-6s][%6s]", "é", "✓"))
print(("%3d|%-3d|%03d"):format(5, 5, 5))
print(string.format("%5s|%-5s|", "toolong", "toolong"))
print(string.format("%.0s|%.1s|", "abc", "abc"))
