// ESLint: typescript-eslint's recommended rules everywhere, the rules of hooks in the renderer.
// Layer rules and import cycles are checked by dependency-cruiser (.dependency-cruiser.cjs);
// both run in `npm run lint`, part of `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'dist-electron/', 'release/', 'e2e/output/', '.native/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `_name` marks a parameter kept for its position.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Empty catch blocks carry a comment saying why the error is dropped.
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    // The rules of hooks. The plugin's React Compiler checks (refs during render, setState in
    // effects, …) are for code compiled by the React Compiler, which this project does not use.
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },
);
