def check(age)
  raise ArgumentError, "age must be positive, got #{age}" if age < 0
  age
end
puts check(5)
puts check(-1)
