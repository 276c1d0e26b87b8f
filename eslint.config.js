'use strict'

const js = require('@eslint/js')
const globals = require('globals')

module.exports = [
  { ignores: ['node_modules/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'commonjs',
      globals: { ...globals.node }
    },
    rules: {
      strict: ['error', 'global'],
      'no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'prefer-const': 'error',
      'no-var': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }]
    }
  },
  {
    // Runs in the browser, inlined into the HTML report: a plain script for any browser.
    files: ['lib/html-report/page.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
    rules: { strict: ['error', 'function'], 'no-var': 'off', 'prefer-const': 'off' }
  }
]
