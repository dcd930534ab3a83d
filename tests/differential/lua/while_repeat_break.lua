local i = 0
while true do i = i + 1 if i > 5 then break end end print(i)
repeat local x = i i = i - 1 until x <= 2 print(i)
local found
for k, v in ipairs({4, 8, 15, 16}) do if v > 10 then found = k break end end print(found)
local s = 0 for i = 1, 100 do if i % 2 == 0 then goto cont end s = s + i ::cont:: end print(s)
