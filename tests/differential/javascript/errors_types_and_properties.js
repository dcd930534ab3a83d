for (const C of [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError]) {
  const e = new C('m');
  console.log(e.name, e.message, String(e), e instanceof Error, Object.prototype.toString.call(e), typeof e.stack);
}
console.log(String(new Error()), new Error().message === '', Error('no new').message);
const agg = new AggregateError([new Error('a'), new TypeError('b')], 'many');
console.log(agg.name, agg.message, agg.errors.length, agg.errors[1].name);
