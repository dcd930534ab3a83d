class AppError(Exception):
    def __init__(self, code, detail):
        super().__init__(f"[{code}] {detail}")
        self.code = code
class NotFound(AppError):
    pass
try:
    raise NotFound(404, "no such page")
except AppError as e:
    print(type(e).__name__, e.code, e, e.args, repr(e), isinstance(e, Exception))
try:
    try:
        {}["k"]
    except KeyError as e:
        raise ValueError("lookup failed") from e
except ValueError as e:
    print(e, repr(e.__cause__), e.__context__ is e.__cause__, e.__suppress_context__)
try:
    raise RuntimeError
except RuntimeError as e:
    print(repr(e), str(e) == "", e.args)
print(issubclass(NotFound, Exception), NotFound.__mro__[1].__name__, KeyError.__mro__)
