import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['.scratch/**', '**/node_modules/**', 'proto/gen/**', '**/.data/**', 'charts/**', '**/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
      // At most 400 lines a file, counting every line: blank lines and comments are read too.
      'max-lines': ['error', { max: 400 }],
    },
  },
  {
    // The dashboard (React): the rules of hooks.
    files: ['dashboard/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    // Short functions in source code. complexity 20 is ESLint's own default threshold. Tests and test
    // kits (fixtures that only tests load) are exempt.
    files: ['**/*.{js,mjs,ts,tsx}'],
    ignores: ['**/*.test.ts', 'test/**', '**/testkit.ts', '**/testing/**', '**/testing.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      complexity: ['error', { max: 20 }],
    },
  },
  {
    files: ['scripts/**', 'bench/**', 'examples/**', '**/cli.ts'],
    rules: { 'no-console': 'off' },
  },
);
