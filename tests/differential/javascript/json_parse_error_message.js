// expected-difference: V8 and QuickJS word JSON.parse's SyntaxError differently
JSON.parse('{"a": }');
