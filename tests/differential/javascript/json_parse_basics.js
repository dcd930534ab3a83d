const o = JSON.parse('{"a":[1,2,{"b":null}],"c":"\\u00e9\\n","d":1e3,"e":-0.5,"f":true}');
console.log(o.a[2].b, o.c.length, o.d, o.e, o.f, Object.is(JSON.parse('-0'), -0));
console.log(JSON.parse('"\\ud83d\\ude00"').length, JSON.parse(' [ ] ').length, JSON.parse('123456789012345678901234567890'));
const revived = JSON.parse('{"d":"2024-01-02T00:00:00.000Z","n":{"x":1}}', (k, v) => (k === 'd' ? new Date(v) : v));
console.log(revived.d.getUTCFullYear(), revived.n.x);
console.log(JSON.stringify(JSON.parse('{"__proto__": 1, "a": 2}')), JSON.parse('{"a":1,"a":2}').a);
