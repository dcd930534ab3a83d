import uuid
print(uuid.uuid5(uuid.NAMESPACE_DNS, "python.org"), uuid.uuid3(uuid.NAMESPACE_URL, "http://x"))
u = uuid.UUID("12345678-1234-5678-1234-567812345678")
print(u.hex, u.int, u.version, u.bytes[:4], str(u).upper(), uuid.UUID(int=0))
