// Type-aware lint (typescript-eslint), run by `npm test` through `npm run lint`.
import tseslint from 'typescript-eslint';

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
  // The layers of DESIGN.md as import rules (test/unit/layers.test.ts checks the same on the sources).
  {
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The contract runs on plain Node: no editor here.' }],
          patterns: [{ group: ['**/api/**', '**/vscode/**', '**/engine/**', '**/webview/**'], message: 'The contract holds what client and engine share: it imports neither side.' }],
        },
      ],
    },
  },
  {
    files: ['src/api/**/*.ts', 'src/conversations/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The client and the conversation store run on plain Node: no editor here.' }],
          patterns: [{ group: ['**/vscode/**', '**/engine/**', '**/webview/**'], message: 'The client imports neither the editor layer, the engine nor the webview.' }],
        },
      ],
    },
  },
  {
    files: ['src/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The engine runs on plain Node: no editor here.' }],
          patterns: [
            { group: ['**/vscode/**', '**/webview/**'], message: 'The engine imports neither the editor layer nor the webview.' },
            { group: ['**/api/**'], message: 'The engine shares shapes with the client through src/contract only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/vscode/**/*.ts', 'src/extension.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/engine/**'], message: 'The extension starts the engine as a process of its own (dist/engineHosted.js); it does not import it.' }] },
      ],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'The webview runs in a browser frame: no editor API.' },
            { name: 'undici', message: 'The webview makes no HTTP requests: it asks the host.' },
          ],
          patterns: [
            { group: ['node:*'], message: 'The webview runs in a browser: no Node modules.' },
            { group: ['**/vscode/**', '**/engine/**', '**/api/client', '**/api/http'], message: 'The webview talks to the host through protocol.ts only.' },
          ],
        },
      ],
    },
  },
);
