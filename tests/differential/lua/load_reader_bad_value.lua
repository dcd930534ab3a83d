print(load(function() return {} end))
print(pcall(load, function() return {} end))
print(pcall(load, 42))
