-- CPU workload (the same program runs natively and in the engine): recursive calls.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
return fib(27)
