import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Layers from core/ to play/ must run without a DOM (tabs, workers, Node, the simulator).
const domFree = ['core', 'net', 'dht', 'bootstrap', 'world', 'store', 'region', 'host', 'agree', 'play'].map((l) => `src/${l}/**/*.ts`);

export default tseslint.config(
  // .test-results: test output, and the relay bundle the browser tests build there
  // (e2e/global-setup.ts) while lint runs beside them.
  { ignores: ['**/*.tmp.ts', 'dist/**', 'node_modules/**', 'bench/results/**', 'coverage/**', '.sim-cache/**', '.test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: domFree,
    rules: {
      'no-restricted-globals': ['error',
        { name: 'document', message: 'DOM-free layer: no document here.' },
        { name: 'window', message: 'DOM-free layer: use globalThis or inject it.' },
        { name: 'localStorage', message: 'DOM-free layer: use src/store.' },
      ],
    },
  },
);
