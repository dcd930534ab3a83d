// expected-difference: QuickJS is built without Intl; toLocaleString does not group digits
console.log((1234567.891).toLocaleString('en-US'), typeof Intl);
