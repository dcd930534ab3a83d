require "shellwords"
p Shellwords.split("a 'b c' \"d e\" f\\ g"), Shellwords.escape("it's here"), %w[a b].shelljoin
require "abbrev" rescue p :no_abbrev
require "securerandom"
p SecureRandom.respond_to?(:hex)
require "English"
"x" =~ /x/
p $LAST_MATCH_INFO[0]
require "ostruct" rescue p :no_ostruct
