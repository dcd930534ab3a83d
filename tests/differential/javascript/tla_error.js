console.log('before');
await Promise.resolve();
throw new SyntaxError('thrown after an await');
