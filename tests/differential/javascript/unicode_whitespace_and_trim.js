const ws = '\u0009\u000b\u000c\u0020\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';
console.log(JSON.stringify((ws + 'x' + ws).trim()), ws.trim().length, ws.length);
console.log(JSON.stringify('a\u200bb'.trim()), /\s/.test('\u200b'), Number('\u00a042\u3000'));
