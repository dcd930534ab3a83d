try { JSON.stringify({ n: 1n }); } catch (e) { console.log(e.name); }
BigInt.prototype.toJSON = function () { return `${this}`; };
console.log(JSON.stringify({ n: 12345678901234567890n }));
delete BigInt.prototype.toJSON;
console.log(JSON.stringify({ date: new Date(Date.UTC(2020, 0, 1)), re: /x/g, err: new Error('e'), set: new Set([1]) }));
