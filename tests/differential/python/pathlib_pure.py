from pathlib import PurePosixPath
p = PurePosixPath("/usr/local/lib/python3.11/site-packages/pkg/__init__.py")
print(p.name, p.stem, p.suffix, p.parent, p.parts[:3], p.anchor, p.is_absolute())
print(p.with_suffix(".pyc"), p.with_name("x.txt"), p.relative_to("/usr/local"), PurePosixPath("a") / "b" / "c.tar.gz")
print(PurePosixPath("x/y/z.tar.gz").suffixes, PurePosixPath("a/b").joinpath("..", "c"), PurePosixPath("/a/b").match("*/b"))
import posixpath
print(posixpath.normpath("/a/./b/../c//d"), posixpath.splitext("f.tar.gz"), posixpath.join("a", "/b", "c"), posixpath.basename("/x/y/"))
