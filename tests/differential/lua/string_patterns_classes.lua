local s = "aB3 _\t!\n\0z"
for _, c in ipairs({"%a", "%d", "%l", "%u", "%s", "%w", "%x", "%p", "%c", "%g"}) do
  print(c, (s:gsub("[^" .. c .. "]", "")):byte(1, -1))
end
print(("[a-c]"):find("[%]]"), ("x-y"):match("[a%-z]+"))
print(("café"):len(), ("café"):upper())
