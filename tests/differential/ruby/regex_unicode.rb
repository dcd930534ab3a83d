p "naïve café 日本語 x_1".scan(/\w+/), "naïve café 日本語".scan(/[[:alpha:]]+/), "naïve".scan(/\p{Alpha}/).size
p "a\u00a0b\u2003c  d".gsub(/[[:space:]]+/, " "), "1٣5".scan(/\d/), "1٣5".scan(/[[:digit:]]/)
p "STRASSE" =~ /straße/i, "Σ" =~ /σ/i, "日本語テキスト".scan(/\p{Katakana}+/), "über".match?(/\A\p{Lower}+\z/)
