// @ts-check
// ESLint's flat config for the Playground's own code (make lint, scripts/lint_playground.sh):
// the page's modules (browser globals), this directory's config files and the tests under
// tests/playground (node). Formatting is prettier's job (.prettierrc.json), not ESLint's.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      eqeqeq: ['error', 'always'],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none' }],
    },
  },
  {
    files: ['web/playground/src/**/*.js'],
    languageOptions: { ecmaVersion: 2020, sourceType: 'module', globals: globals.browser },
  },
  {
    files: ['web/playground/*.js', 'tests/playground/**/*.mjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
  },
  {
    files: ['tests/playground/**/*.cjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'commonjs', globals: globals.node },
  },
];
