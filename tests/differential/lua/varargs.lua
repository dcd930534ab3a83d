local function f(...) return select("#", ...), ... end
print(f()) print(f(nil)) print(f(1, nil, nil))
local function g(...) local a, b = ... return a, b end
print(g(1), g(1, 2, 3))
local function h(...) return {...} end
print(#h(1, 2, 3))
print((f(1, 2, 3)))
local function sum(...) local s = 0 for _, v in ipairs({...}) do s = s + v end return s end
print(sum(1, 2, 3.5), sum())
