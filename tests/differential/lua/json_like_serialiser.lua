local function ser(v, ind)
  ind = ind or ""
  local t = type(v)
  if t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    local out = {}
    for _, k in ipairs(keys) do out[#out + 1] = ind .. "  " .. string.format("%q", k) .. ": " .. ser(v[k], ind .. "  ") end
    return "{\n" .. table.concat(out, ",\n") .. "\n" .. ind .. "}"
  elseif t == "string" then return string.format("%q", v)
  else return tostring(v) end
end
print(ser({name = "x", list = {1, 2, 3}, nested = {a = true, b = 1.5}, [1] = "first"}))
