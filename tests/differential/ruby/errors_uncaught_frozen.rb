s = "abc".freeze
s << "d"
