// Lint: the recommended JavaScript and typescript-eslint rules, type-aware where it pays.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.esbuild/', '.serverless/', '.data/', 'coverage/', '**/*.generated.*', 'lib/creatures/data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', __filename: 'readonly', console: 'readonly' },
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
);
