local s = "abc
