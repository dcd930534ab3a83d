print(load(function() error("reader failed") end))
print(load(function() error({}) end))
