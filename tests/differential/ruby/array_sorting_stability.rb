people = [["alice", 30], ["bob", 25], ["carol", 30], ["dave", 25], ["eve", 35]]
p people.sort_by { |n, a| [a, n] }
p people.sort { |x, y| [y[1], x[0]] <=> [x[1], y[0]] }
p people.min_by(2) { |_, a| a }, people.max_by { |_, a| a }, people.map(&:first).sort_by(&:length)
words = %w[banana Apple cherry apple Banana]
p words.sort, words.sort_by { |w| [w.downcase, w] }, words.sort_by { |w| [w.downcase, w] }, words.uniq(&:downcase)
p [3, 1, 2].sort { |a, b| b <=> a }, [0.5, -1, 3].sort, [[2, "b"], [1, "z"], [2, "a"]].sort
