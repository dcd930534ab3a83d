# expected-difference: the sandbox runs CRuby 4.0.0 (ruby.wasm), Debian ships Ruby 3.1.2
p RUBY_VERSION, RUBY_VERSION >= "3.0"
