words = ["banana", "Apple", "cherry", "apple", "Banana", "éclair", "Éclair", "zebra"]
p words.sort, words.sort_by { |w| [w.downcase, w] }, words.min, words.max, words.sort_by { |w| [-w.size, w] }
p "a" < "b", "Z" < "a", "abc" == "ab" + "c", "abc".eql?("abc"), "a".casecmp?("A"), "straße".casecmp?("STRASSE")
