try:
    int("nope")
except ValueError:
    raise RuntimeError("could not parse the configuration")
