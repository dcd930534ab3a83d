print("日本語のテキスト")
print("emoji: 😀👍🏽", "combining: e\u0301", sep=" | ")
print("wide", "\u00e9\u00e8\u00ea", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629")
import sys
print(sys.getdefaultencoding())
print("%-6s|" % "é", f"{'日本':>6}|")
