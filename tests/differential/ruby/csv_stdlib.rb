require "csv"
text = CSV.generate do |csv|
  csv << ["name", "note", "n"]
  csv << ["Ann", 'says "hi", twice', 3]
  csv << ["Bob", "multi\nline", 4.5]
end
p text
CSV.parse(text).each { |row| p row }
t = CSV.parse("a;b\n1;2\n3;4\n", col_sep: ";", headers: true)
p t.map(&:to_h).map(&:to_a), t.headers, CSV.parse_line("x,\"y,z\",")
