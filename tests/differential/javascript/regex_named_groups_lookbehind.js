const m = '2024-03-15'.match(/(?<year>\d{4})-(?<month>\d{2})-(?<day>\d{2})/);
console.log(m.groups.year, m.groups.month, m.groups.day, JSON.stringify(m.groups));
console.log(JSON.stringify('$10 €20 $30'.match(/(?<=\$)\d+/g)), JSON.stringify('price: 100 200'.match(/(?<!\d)\d{3}(?!\d)/g)));
console.log('aaa bbb'.replace(/(?<first>\w)\k<first>+/g, '<$<first>>'));
console.log(/(\w+)\s\1/.test('hello hello'), /(?:ab)+/.exec('ababx')[0]);
