# expected-difference: Ruby 3.4 and later (the sandbox's 4.0) word NoMethodError and NameError differently from Ruby 3.1 ("undefined method 'foo' for an instance of Integer" against "undefined method `foo' for 5:Integer")
[-> { 5.foo }, -> { nil.upcase }, -> { undefined_local_xyz }, -> { Object.new.bar(1) }, -> { :sym.unknown }, -> { Object.const_get(:NoSuchConst) }, -> { Comparable.new }].each do |t|
  t.call
rescue NameError => e
  puts "#{e.class}: #{e.message}"
end
