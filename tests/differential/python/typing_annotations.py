from typing import Optional, Union, List, Dict, TypedDict, NamedTuple, get_type_hints
class Movie(TypedDict):
    title: str
    year: int
class Pt(NamedTuple):
    x: float
    y: float = 0.0
def f(a: int, b: Optional[str] = None) -> List[int]:
    return [a]
print(f.__annotations__, get_type_hints(f))
print(Movie(title="x", year=1), Pt(1.5), Pt._field_defaults, Optional[int], Union[int, str], int | None)
print(Dict[str, int], list[int], dict[str, list[int]])
