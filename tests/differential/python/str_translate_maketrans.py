t = str.maketrans("abc", "xyz", "d")
print("aabbccdd".translate(t))
print("hello".translate({ord("l"): "L", ord("o"): None}))
import string
print(string.ascii_letters, string.digits, string.punctuation)
print(string.capwords("hello   big world"))
print(string.Template("$who likes ${what}").substitute(who="tim", what="kung pao"))
print(string.Template("$a and $b").safe_substitute(a=1))
