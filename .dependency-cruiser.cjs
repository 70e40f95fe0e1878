// Layer rules (docs/architecture.md): which part of the code may import which. Checked by
// `npm run lint` (part of `npm test`).
const SERVICE = '^electron/service/';
module.exports = {
  forbidden: [
    {
      // Runtime cycles: modules that load each other (initialisation order bugs, nothing can be
      // changed or tested alone). A cycle closed only by `import type` (a context type naming the
      // parts it wires) is erased at compile time and allowed.
      name: 'no-cycles',
      severity: 'error',
      comment: 'An import cycle ties modules so neither can change alone.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'shared-is-self-contained',
      severity: 'error',
      comment:
        'shared/ is used by the service, the renderer and main alike: only itself and pure-JS libraries (zod, papaparse, indefinite), no platform.',
      from: { path: '^shared/' },
      to: { pathNot: ['^shared/', '^node_modules/(zod|papaparse|indefinite)/'] },
    },
    {
      name: 'store-uses-shared-only',
      severity: 'error',
      comment: 'store/ is the data layer: it knows SQLite and shared types, not the rules above it.',
      from: { path: `${SERVICE}store/` },
      to: { path: `${SERVICE}(domain|api|sync|host)/` },
    },
    {
      name: 'only-store-opens-sqlite',
      severity: 'error',
      comment: 'store/ is the only data layer: nothing else reaches SQLite (docs/store.md).',
      from: { path: '^electron/', pathNot: `${SERVICE}store/` },
      to: { path: '(^|/)node_modules/better-sqlite3/' },
    },
    {
      name: 'domain-below-api-and-sync',
      severity: 'error',
      comment: 'domain/ holds the rules: it uses store/ and shared/, never the HTTP or sync layers above it.',
      from: { path: `${SERVICE}domain/` },
      to: { path: `${SERVICE}(api|sync|host)/` },
    },
    {
      name: 'api-over-domain',
      severity: 'error',
      comment: 'api/ turns HTTP into domain calls: it does not reach into the sync engine internals or hosts.',
      from: { path: `${SERVICE}api/` },
      to: { path: `${SERVICE}host/` },
    },
    {
      name: 'sync-over-domain',
      severity: 'error',
      comment: 'sync/ uses the domain and the shared ODR client, never the HTTP routes or hosts.',
      from: { path: `${SERVICE}sync/` },
      to: { path: `${SERVICE}(api|host)/` },
    },
    {
      name: 'service-never-imports-electron',
      severity: 'error',
      comment: 'The service runs under plain Node (npm run serve, tests) and in a utilityProcess.',
      from: { path: SERVICE },
      to: { path: ['^node_modules/electron/', '^electron/main/', '^renderer/'] },
    },
    {
      name: 'main-reaches-service-host-only',
      severity: 'error',
      comment: 'main only brokers: it talks to the service process through host/, never to its domain or store.',
      from: { path: '^electron/main/' },
      to: { path: SERVICE, pathNot: `${SERVICE}host/(wire|child)\\.ts$` },
    },
    {
      name: 'renderer-through-http',
      severity: 'error',
      comment: 'The renderer reaches data only through the HTTP client in shared/.',
      from: { path: '^renderer/' },
      to: { path: ['^electron/', '^node_modules/(better-sqlite3|electron|hono|sharp)/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^dist', '^release'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
