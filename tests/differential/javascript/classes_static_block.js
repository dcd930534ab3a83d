class Config { static values; static { Config.values = [1, 2, 3].map((x) => x * 2); } }
console.log(Config.values.join(','));
