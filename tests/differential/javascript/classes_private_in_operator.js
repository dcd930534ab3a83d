// expected-difference: `#field in obj` (ES2022) is newer than QuickJS 2021-03-27
class A { #x = 1; static has(o) { return #x in o; } }
console.log(A.has(new A()), A.has({}));
