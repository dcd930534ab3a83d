from decimal import Decimal, getcontext, ROUND_HALF_UP, ROUND_HALF_EVEN, InvalidOperation
print(Decimal("0.1") + Decimal("0.2"), Decimal(0.1), Decimal("1.10") * 3)
print(Decimal("2.675").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
print(Decimal("2.665").quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))
getcontext().prec = 50
print(Decimal(1) / Decimal(7))
print(Decimal(2).sqrt())
print(Decimal("1e3").normalize(), Decimal("100").normalize(), Decimal("-0"), Decimal("NaN"))
print(Decimal("123.456").as_tuple())
try:
    Decimal("abc")
except InvalidOperation as e:
    print("InvalidOperation", type(e).__name__)
