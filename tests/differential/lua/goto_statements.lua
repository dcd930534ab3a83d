for i = 1, 3 do
  for j = 1, 3 do
    if j == 2 then goto continue end
    io.write(i, j, " ")
    ::continue::
  end
end
print()
local i = 1
::top::
if i <= 3 then io.write(i, " ") i = i + 1 goto top end
print()
print(load("goto nowhere"))
print(load("do local x ::l1:: end goto l1"))
print(load("::a:: ::a::"))
