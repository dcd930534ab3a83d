console.log('tab\there', 'quote\'s', "dq\"s", 'back\\slash');
console.log('\x41\u0042\u{43}', '\u00e9'.length, '\0'.length);
console.log(JSON.stringify('line1\nline2\t\u0001'));
console.log(escape('a b+c'), unescape('%41%20'), encodeURIComponent('a b&c=d/é'), decodeURIComponent('%E2%82%AC'));
console.log(encodeURI('http://x.y/a b?q=1&r=é'));
