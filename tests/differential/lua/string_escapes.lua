print("tab:\t|", "nl-escape:\z
       continued", "\x41\65\u{42}\u{7FF}\u{FFFF}")
print(#"\u{10FFFF}", #"\u{7FFFFFFF}", "\"quoted\"", '\'single\'', [[long
string]], [==[with ]] inside]==])
print(load([[return "\q"]]))
print(load([[return "\xZZ"]]))
print(load([[return "\u{110000000}"]]))
print(load([[return "\300"]]))
