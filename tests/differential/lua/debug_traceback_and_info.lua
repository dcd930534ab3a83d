local function where() local info = debug.getinfo(1, "Sl") return info.short_src, info.currentline, info.what end
print(where())
local function named() return debug.getinfo(1, "n").name end
print(named())
print(debug.traceback("msg", 1):match("^msg\nstack traceback:\n") ~= nil)
local info = debug.getinfo(print) print(info.what, info.short_src, info.source)
print(debug.getinfo(100))
