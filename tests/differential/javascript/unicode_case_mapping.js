const words = ['İstanbul', 'ΌΣΟΣ', 'Ǆemal', 'ß', 'ﬁne', 'ÅNGSTRÖM', 'ＡＢＣ', 'Ⓐ'];
for (const w of words) console.log(w, w.toLowerCase(), w.toUpperCase(), w.toLowerCase().length, w.toUpperCase().length);
