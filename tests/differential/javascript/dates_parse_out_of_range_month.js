// expected-difference: QuickJS 2021-03-27 accepts month 13 in an ISO date string (V8: Invalid Date)
console.log(Date.parse('2024-13-01'), Date.parse('2024-02-30T00:00:00Z'));
