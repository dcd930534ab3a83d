class AppError < StandardError
  attr_reader :code
  def initialize(code, msg = "app failed")
    @code = code
    super("[#{code}] #{msg}")
  end
end
class NotFound < AppError; end
begin
  raise NotFound.new(404, "no such page")
rescue AppError => e
  puts e.class, e.code, e.message, e.is_a?(StandardError), e.class.ancestors.take(4).inspect
end
begin
  begin
    Integer("x")
  rescue ArgumentError => e
    raise RuntimeError, "wrapped"
  end
rescue => e
  puts e.message, e.cause.class, e.cause.message
end
e = RuntimeError.new("made")
puts e.message, e.backtrace.inspect, RuntimeError.new.message, StandardError.new(nil).message.inspect
