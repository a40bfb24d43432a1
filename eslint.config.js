// Lint: the recommended JavaScript and typescript-eslint rules, type-aware where it pays.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.esbuild/', '.serverless/', '.data/', 'coverage/', '**/*.generated.*', 'lib/graphql/creatures/data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', __filename: 'readonly', console: 'readonly', process: 'readonly' },
    },
    // CommonJS files (Serverless plugins) load modules with require().
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      // `import { z } from 'zod'` takes zod's namespace object as a value, so a bundle keeps every export
      // of zod, its 40-odd locales included (~750 KB); `import * as z` lets esbuild keep only what is used.
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
          message: "Use `import * as z from 'zod'` (keeps function bundles small).",
        },
      ],
    },
  },
  {
    // No regular expression is ever built from run-time text (issue 10, class 3): a pattern made from
    // a request can backtrack for minutes. Patterns are literals; matching request text against
    // user-given wildcards goes through code such as lib/google/filter.ts `wildcardMatch`. A file that
    // truly needs a computed pattern from trusted constants goes in `ignores` here, with the reason.
    files: ['lib/**/*.ts', 'functions/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    ignores: [],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='RegExp']:not([arguments.0.type='Literal'])",
          message: 'Build no regular expression from run-time text (ReDoS); use a literal, or match without a regular expression.',
        },
        {
          selector: "CallExpression[callee.name='RegExp']:not([arguments.0.type='Literal'])",
          message: 'Build no regular expression from run-time text (ReDoS); use a literal, or match without a regular expression.',
        },
        {
          // `text.match(s)` / `search(s)` / `matchAll(s)` turn a string argument into a regular expression.
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(match|matchAll|search)$/][arguments.length=1]:not([arguments.0.regex]):not([arguments.0.name=/^[A-Z][A-Z0-9_]*$/])",
          message: 'String#match/matchAll/search compile a string argument as a regular expression; pass a regular-expression literal (or a CONSTANT holding one).',
        },
        {
          // `/\/+$/`, `/=+$/`, `/\s+$/`: an unanchored run before `$` is tried from every character of
          // the run, quadratic on a long one (a 1 MB run of `/` takes minutes).
          selector: 'Literal[regex.pattern=/^(?:\\\\.|\\[[^\\]]*\\]|[^\\\\[(^])[+*]\\$$/]',
          message: 'A lone repeated character before $ backtracks quadratically on a long run of it; use trimEnd from lib/kernel/text.ts (or String#trimEnd for white space).',
        },
        // Repeated from the block above: a later block's no-restricted-syntax replaces an earlier one's.
        {
          selector: "ImportDeclaration[source.value='zod'] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
          message: "Use `import * as z from 'zod'` (keeps function bundles small).",
        },
      ],
    },
  },
  {
    // Module boundaries (issue 13): engines know nothing of operations or tasks. An engine call's types
    // and failures live in lib/engines/core (call.ts, errors.ts); lib/file-api/operations/engine-task.ts maps them to
    // task failures in one place. Storage clients and the network guard sit below operations too.
    files: ['lib/engines/**/*.ts', 'lib/adapters/user-storage/**/*.ts', 'lib/adapters/net/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/operations/**', '#lib/operations/*'], message: 'Engines, storage clients and the network guard do not import from lib/file-api/operations (module boundary).' },
            { group: ['**/tasks/**', '#lib/tasks/*'], message: 'Engines, storage clients and the network guard do not import from lib/file-api/tasks (module boundary).' },
          ],
        },
      ],
    },
  },
);
