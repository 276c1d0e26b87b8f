'use strict'

const js = require('@eslint/js')
const globals = require('globals')
const oneWayImports = require('./eslint-rules/one-way-imports')

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
    // Tests too: a message or pattern longer than a line is written in parts (test/helpers/patterns.js joined).
    files: ['lib/**/*.js', 'bin/**/*.js', 'bench/**/*.js', 'eslint-rules/**/*.js', 'test/**/*.js', '*.js'],
    rules: { 'max-len': ['error', { code: 120, ignoreUrls: true }] }
  },
  {
    files: ['lib/**/*.js'],
    plugins: { layers: { rules: { 'one-way-imports': oneWayImports } } },
    rules: { 'layers/one-way-imports': 'error' }
  },
  {
    // Run in the browser, inlined into the HTML report and the live page: plain scripts for any browser.
    files: ['lib/reports/html/page.js', 'lib/ui/live-page-script.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
    rules: { strict: ['error', 'function'], 'no-var': 'off', 'prefer-const': 'off' }
  }
]
