# expected-difference: the sandbox runs CRuby 3.4.1 (ruby.wasm), Debian ships Ruby 3.1.2
p RUBY_VERSION, RUBY_VERSION >= "3.0"
