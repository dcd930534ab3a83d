config = { db: { user: "admin", port: 5432 }, mode: "dev" }
case config
in { db: { user: String => user, port: Integer => port }, mode: "prod" }
  puts "prod #{user}"
in { db: { user:, port: }, mode: }
  puts "#{mode} #{user}@#{port}"
end
case [1, [2, 3]]
in [Integer => a, [b, *rest]]
  p [a, b, rest]
end
data = { status: "ok", items: [1, 2] }
if data in { status: "ok", items: [_, *] }
  puts "matched"
end
result = case 7
         in Integer | Float => n if n > 5 then "big #{n}"
         in _ then "other"
         end
puts result
arr = [1, "x", :y, 2.0, nil]
p arr.map { |v|
  case v
  in Integer then :int
  in String then :str
  in Symbol then :sym
  in Float then :float
  in nil then :nil
  end
}
