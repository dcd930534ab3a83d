error(setmetatable({}, {__tostring = function() return "custom" end}))
