// expected-difference: class static blocks (ES2022) are newer than QuickJS 2021-03-27
class Config { static values; static { Config.values = [1, 2, 3].map((x) => x * 2); } }
console.log(Config.values.join(','));
