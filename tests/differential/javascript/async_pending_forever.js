// expected-difference: node exits quietly with a promise that never settles; the sandbox reports it as an error
const never = new Promise(() => {});
console.log('started');
(async () => { await never; console.log('never printed'); })();
