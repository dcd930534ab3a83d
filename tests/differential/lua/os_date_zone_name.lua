print(os.date("!%Z", 0))
print(os.date("%Z", 0))
