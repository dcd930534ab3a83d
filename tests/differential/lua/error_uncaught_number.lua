io.write("partial ")
error(3.5)
