console.log('ß'.toUpperCase(), 'İ'.toLowerCase().length, 'ǅ'.toLowerCase(), 'ﬀ'.toUpperCase());
console.log('ΣΑΣ'.toLowerCase(), 'straße'.toUpperCase());
console.log(String.fromCharCode(72, 105), String.fromCodePoint(0x1F600).length);
console.log([...'héllo'].map((c) => c.charCodeAt(0)).join(','));
