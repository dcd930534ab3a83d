for s in ["123", "12.5", "abc", "Abc", "ABC", "   ", "", "a1", "٣", "½", "Ⅻ"]:
    print(repr(s), s.isdigit(), s.isdecimal(), s.isnumeric(), s.isalnum(), s.isupper(), s.islower(), s.isspace(), s.isidentifier())
