const bad = ['{a:1}', "{'a':1}", '[1,]', '', 'undefined', '01', '"\t"', '{"a":1}x', 'NaN'];
for (const s of bad) {
  try { JSON.parse(s); console.log('parsed', JSON.stringify(s)); } catch (e) { console.log(JSON.stringify(s), e.name, e instanceof SyntaxError); }
}
