require "erb"
tpl = ERB.new("Hello <%= name %>! <% items.each do |i| %>[<%= i %>]<% end %>\n", trim_mode: "-")
name = "ERB"
items = [1, 2]
print tpl.result(binding)
puts ERB::Util.html_escape("<a href='x'>&</a>")
