// expected-difference: the sandbox has no timers (setTimeout is not defined); node has its event loop
setTimeout(() => console.log('later'), 0);
console.log('now');
