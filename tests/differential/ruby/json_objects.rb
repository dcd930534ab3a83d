require "json"
class Money
  def initialize(c) = @cents = c
  def to_json(*a) = { "amount" => format("%.2f", @cents / 100.0), "cur" => "EUR" }.to_json(*a)
  def to_s = "€#{@cents / 100}"
end
puts [Money.new(1999)].to_json, JSON.generate({ "m" => Money.new(5) }), JSON.dump([1, "a", nil])
Row = Struct.new(:id, :name)
puts Row.new(1, "x").to_h.to_json, JSON.parse(Row.new(2, "y").to_h.to_json)["name"]
