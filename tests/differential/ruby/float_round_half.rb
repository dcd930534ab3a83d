[0.5, 1.5, 2.5, -0.5, -1.5, 0.125, 0.375, 2.675, 1.005, 1e-20].each do |v|
  puts [v, v.round, v.round(half: :even), v.round(half: :up), v.round(2), v.floor(1), v.ceil(1), format("%.2f", v), format("%.0f", v)].join(" ")
end
