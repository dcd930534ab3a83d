local function split(s, sep)
  local out = {}
  for piece in (s .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do out[#out + 1] = piece end
  return out
end
local parts = split("a,b,,c", ",")
print(#parts, table.concat(parts, "|"))
print(table.concat(split("1.2.3", "."), " "))
local words = {} for w in ("The quick brown fox"):gmatch("%S+") do words[#words + 1] = w:lower() end
print(table.concat(words, "_"))
