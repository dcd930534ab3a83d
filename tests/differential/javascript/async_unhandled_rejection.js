// expected-difference: node stops at an unhandled rejection; the sandbox only awaits the result, so a rejection nobody awaits is not an error
Promise.reject(new Error('nobody handles this'));
console.log('after');
