config = { host: "localhost" }
puts config.fetch(:host)
puts config.fetch(:port)
