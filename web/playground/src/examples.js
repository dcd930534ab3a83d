// @ts-check
// Example programs per language id of GET /languages. The first of each runs cleanly (the
// browser test runs it in every language); "Endless loop" shows a limit error.

/** @type {Record<string, [name: string, code: string][]>} */
export const EXAMPLES = {
  lua: [
    [
      'Hello',
      'print("Hello from " .. _VERSION)\nlocal squares = {}\nfor i = 1, 5 do squares[#squares + 1] = i * i end\nreturn table.concat(squares, ", ")\n',
    ],
    [
      'Error with a traceback',
      'local function area(shape)\n  return shape.width * shape.height\nend\nreturn area({width = 3})\n',
    ],
    ['Endless loop (fuel limit)', 'local n = 0\nwhile true do n = n + 1 end\n'],
    ['Output flood (output limit)', 'for i = 1, 100000 do print("line " .. i) end\n'],
  ],
  python: [
    [
      'Hello',
      'import sys\nprint("Hello from Python", sys.version.split()[0])\n[n * n for n in range(5)]\n',
    ],
    ['Error with a traceback', 'def ratio(a, b):\n    return a / b\n\nratio(1, 0)\n'],
    ['Endless loop (fuel limit)', 'n = 0\nwhile True:\n    n += 1\n'],
    ['Output flood (output limit)', 'for i in range(100000):\n    print("line", i)\n'],
  ],
  javascript: [
    ['Hello', 'console.log("Hello from JavaScript");\n[1, 2, 3, 4, 5].map((n) => n * n)\n'],
    [
      'Error with a traceback',
      'function area(shape) {\n  return shape.size.width * shape.size.height;\n}\narea({});\n',
    ],
    ['Endless loop (fuel limit)', 'let n = 0;\nfor (;;) n++;\n'],
    ['Output flood (output limit)', 'for (let i = 0; i < 100000; i++) console.log("line " + i);\n'],
  ],
  ruby: [
    ['Hello', 'puts "Hello from Ruby #{RUBY_VERSION}"\n(1..5).map { |n| n * n }\n'],
    [
      'Error with a traceback',
      'def area(shape)\n  shape.fetch(:width) * shape.fetch(:height)\nend\narea({ width: 3 })\n',
    ],
    ['Endless loop (fuel limit)', 'n = 0\nloop { n += 1 }\n'],
    ['Output flood (output limit)', '100_000.times { |i| puts "line #{i}" }\n'],
  ],
  perl: [
    [
      'Hello',
      'print "Hello from Perl $^V\\n";\nmy @squares = map { $_ * $_ } 1 .. 5;\njoin(", ", @squares)\n',
    ],
    [
      'Error',
      'sub ratio { my ($a, $b) = @_; die "cannot divide by zero\\n" if $b == 0; $a / $b }\nratio(1, 0);\n',
    ],
    ['Endless loop (fuel limit)', 'my $n = 0;\n$n++ while 1;\n'],
    ['Output flood (output limit)', 'print "line $_\\n" for 1 .. 100000;\n'],
  ],
  calc: [
    ['Arithmetic', '2 * (3 + 4) ^ 2\n'],
    ['Division by zero', '1 / 0\n'],
  ],
  // The tests' engine: GET /languages lists it only when sandboxd is started with --engines kv.
  kv: [
    ['Counter', 'set visits 41\nincr visits\nprint hello from kv\nget visits\n'],
    ['Failure', 'fail something went wrong\n'],
  ],
};

/**
 * The examples of a language id, at least one.
 * @param {string} language
 * @returns {[name: string, code: string][]}
 */
export function examplesFor(language) {
  return EXAMPLES[language] || [['Empty', '']];
}
