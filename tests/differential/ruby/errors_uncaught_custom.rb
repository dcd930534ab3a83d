class ValidationError < StandardError; end
puts "validating"
raise ValidationError, "field 'email' is required"
