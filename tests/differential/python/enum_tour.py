from enum import Enum, IntEnum, Flag, auto
class Color(Enum):
    RED = 1
    GREEN = 2
    BLUE = 3
class Perm(Flag):
    R = auto(); W = auto(); X = auto()
class Pri(IntEnum):
    LOW = 1; HIGH = 2
print(Color.RED, repr(Color.GREEN), Color(3), Color["RED"], Color.RED.name, Color.RED.value, list(Color))
print(Perm.R | Perm.W, Perm.R in (Perm.R | Perm.X), Pri.HIGH > Pri.LOW, Pri.HIGH + 1, int(Pri.LOW))
try:
    Color(9)
except ValueError as e:
    print("ValueError:", e)
