local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(fib(20))
local function fact(n) if n <= 1 then return 1 end return n * fact(n - 1) end
print(fact(20), fact(21), fact(25.0))
local function depth(n) if n == 0 then return 0 end return 1 + depth(n - 1) end
print(depth(10000))
local function tail(n) if n == 0 then return "done" end return tail(n - 1) end
print(tail(1000000))
