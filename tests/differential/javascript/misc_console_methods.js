console.log('log');
console.info('info');
console.warn('warn');
console.error('error');
console.debug('debug');
console.log('multiple', 'args', 1, true, null);
console.log();
console.log('');
