print("never"
local x = = 1
