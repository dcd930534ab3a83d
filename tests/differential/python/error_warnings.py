import warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    warnings.warn("deprecated thing", DeprecationWarning)
    warnings.warn("user thing")
    print([(x.category.__name__, str(x.message)) for x in w])
