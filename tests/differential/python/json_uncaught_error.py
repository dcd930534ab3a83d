import json
print("parsing")
json.loads('{"broken": }')
