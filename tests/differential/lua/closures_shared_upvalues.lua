local function pair()
  local v = 0
  return function(n) v = v + n end, function() return v end
end
local add, get = pair()
add(5) add(3) print(get())
local acc = {}
local i = 1
while i <= 3 do local j = i acc[i] = function() return j * 10 end i = i + 1 end
print(acc[1](), acc[2](), acc[3]())
