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
    files: ['lib/**/*.js', 'bin/**/*.js', 'bench/**/*.js', 'eslint-rules/**/*.js', '*.js'],
    rules: { 'max-len': ['error', { code: 120, ignoreUrls: true }] }
  },
  {
    // Tests too; a test's name and the exact message or pattern it expects may run long: they read as one.
    files: ['test/**/*.js'],
    rules: {
      'max-len': ['error', {
        code: 120, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true
      }]
    }
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
