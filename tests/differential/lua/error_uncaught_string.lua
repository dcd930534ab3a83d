print("before")
local function check(x) if x > 1 then error("too big: " .. x) end end
check(5)
print("not reached")
