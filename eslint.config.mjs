// Type-aware lint (typescript-eslint), run by `npm test` through `npm run lint`.
import tseslint from 'typescript-eslint';
import { layerLintConfig } from './layers.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', '.bench/**', 'test-results/**', 'media/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // `async` on a function without `await` still says "returns a promise, and throws into it":
      // many implement promise-returning interfaces (reporters, providers, serializers).
      '@typescript-eslint/require-await': 'off',
      // `const { questions: _questions, ...summary } = conversation` leaves a field out on purpose.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true, argsIgnorePattern: '^_' }],
      // An aborted signal's reason is an Error (an AbortError or what abort() was given).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true }],
    },
  },
  // The layers of DESIGN.md as import rules (layers.mjs; test/unit/layers.test.ts checks the same on the sources).
  ...layerLintConfig(),
);
