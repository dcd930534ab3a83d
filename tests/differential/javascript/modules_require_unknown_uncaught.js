// expected-difference: node's message names the requiring file ("Require stack: ..."); the sandbox's says that there is no package installation and lists the built-in modules
const _ = require('lodash');
console.log(_.chunk([1, 2, 3], 2));
