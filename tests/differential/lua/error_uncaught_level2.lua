local function g() error("x", 2) end
g()
