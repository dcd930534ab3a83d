// expected-difference: node's message names the importing file ("Cannot find package 'express' imported from ..."); the sandbox's says that there is no package installation and lists the built-in modules
import express from 'express';
console.log(typeof express);
