local producer = coroutine.create(function()
  for _, item in ipairs({"a", "b", "c"}) do coroutine.yield(item) end
  return "end"
end)
while true do
  local ok, v = coroutine.resume(producer)
  io.write(tostring(v), " ")
  if coroutine.status(producer) == "dead" then break end
end
print()
print(coroutine.resume(producer))
local co2 = coroutine.wrap(function(...) local args = {...} while true do args = {coroutine.yield(#args)} end end)
print(co2(1, 2), co2(), co2(nil, nil, nil))
local co3 = coroutine.create(function() local x <close> = setmetatable({}, {__close = function() print("closed co3") end}) coroutine.yield() end)
coroutine.resume(co3) print(coroutine.close(co3), coroutine.status(co3))
