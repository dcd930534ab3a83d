s = "Grüße aus Köln: 3 Äpfel, 12 Birnen"
p s.scan(/\d+/).map(&:to_i).sum, s.scan(/[[:upper:]]\p{L}*/), s.gsub(/[äöüß]/, "ä" => "ae", "ö" => "oe", "ü" => "ue", "ß" => "ss")
p s.tr("äöü", "aou"), s.count("a-z"), s.delete("^0-9"), s.each_char.count { |c| c.ord > 127 }, s.bytesize - s.length
p s.unicode_normalize(:nfd).length, s.downcase(:fold).include?("grüsse"), s.sub(/(?<n>\d+)/) { ($~[:n].to_i * 2).to_s }
