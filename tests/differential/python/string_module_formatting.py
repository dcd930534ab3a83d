from string import Formatter
print(list(Formatter().parse("Hi {name}, you owe {amount:.2f}!")))
print(format(0.5, ".0%"), format(-1234.5678, "+,.2f"), format(42, "c"), format(42, "n"), format(1e-4, "f"))
print(format(123, "10"), format("s", "10"), format(2.5, "10"), format(True, ""), format(None, ""))
print(format(float("nan"), "f"), format(float("-inf"), ">8"), format(-0.0, "+.1f"), format(1e300 * 10, ".2e"))
print(f"{12345.6789:.2e}|{0.000012345:.3g}|{123456789.0:.3g}|{1.5:.0f}|{2.5:.0f}|{0.5:.0f}")
