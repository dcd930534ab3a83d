-- expected-difference: package.path and package.cpath are the sandbox's (./ and /workspace, no C modules), so the list of places require looked in differs
print(pcall(require, "no_such_module_xyz"))
print(package.loaded.string == string, type(package.preload), package.config:sub(1, 1))
package.preload.mymod = function(name, extra) return {name = name, extra = extra} end
local m = require("mymod") print(m.name, m.extra, require("mymod") == m)
