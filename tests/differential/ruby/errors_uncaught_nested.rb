class Parser
  def parse(text)
    Integer(text)
  rescue ArgumentError
    raise TypeError, "cannot parse #{text.inspect}"
  end
end
puts Parser.new.parse("12")
Parser.new.parse("1x")
