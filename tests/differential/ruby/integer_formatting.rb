[0, 7, 42, -42, 255, 65535, 2**31, -(2**63)].each do |n|
  puts [n.to_s, n.to_s(2), n.to_s(8), n.to_s(16), format("%08d", n), format("%+x", n), format("%e", n)].join(" ")
end
puts 1234567.89.round(1), 1234567.to_s.gsub(/\B(?=(\d{3})+(?!\d))/, ","), 0.1 + 0.7, 3.0 * 1.1
puts 12.34.to_s, 1e2.to_s, 1.0e-10.to_s, 123456789012345.0.to_s, 1234567890123456789.0.to_s, 1e15.to_i
