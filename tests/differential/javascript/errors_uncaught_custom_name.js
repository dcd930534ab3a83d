class NotFound extends Error { constructor(what) { super(`${what} not found`); this.name = 'NotFound'; } }
function lookup(k) { throw new NotFound(k); }
lookup('user/7');
