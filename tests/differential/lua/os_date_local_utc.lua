local t = 1234567890
print(os.date("%Y-%m-%d %H:%M:%S", t), os.date("%c", t), os.date("%z", t))
print(os.date("%x %X %p", 0))
