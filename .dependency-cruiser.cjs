// The layering of DESIGN.md §3, checked by `npm run check:layers` (dependency-cruiser). docs/architecture.md
// explains each rule. A rule names what a layer must NOT import; everything else is allowed.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Files must not import each other in a circle: a circle has no layer order and no start to test from.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'errors-import-nothing',
      severity: 'error',
      comment: 'errors/ is the bottom layer: the error table and error classes import nothing else from src.',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: '^src/errors/' },
    },
    {
      name: 'record-imports-only-errors',
      severity: 'error',
      comment: 'record/ (DataRecord, fields, paths) builds on errors/ only.',
      from: { path: '^src/record/' },
      to: { path: '^src/', pathNot: '^src/(record|errors)/' },
    },
    {
      name: 'metrics-imports-nothing',
      severity: 'error',
      comment:
        'metrics/ (the mergeable metrics snapshot, its Prometheus text and the prom-client bridge) is pure data and functions: it imports nothing else from src, so that a cluster primary can merge and render snapshots without an origin.',
      from: { path: '^src/metrics/' },
      to: { path: '^src/', pathNot: '^src/metrics/' },
    },
    {
      name: 'formats-not-to-request-path',
      severity: 'error',
      comment:
        'Parsers know nothing of HTTP, the origin, pipelines or responses: formats/ imports only errors/ and record/ (and itself).',
      from: { path: '^src/formats/' },
      to: { path: '^src/(origin|http|response|pipeline|cli)/' },
    },
    {
      name: 'http-not-to-origin-pipeline-response',
      severity: 'error',
      comment:
        'http/ (body reading, content-encoding, request attributes) is a helper of the origin, not its user.',
      from: { path: '^src/http/' },
      to: { path: '^src/(origin|pipeline|response|cli)/' },
    },
    {
      name: 'tls-imports-only-errors',
      severity: 'error',
      comment:
        'tls/ (keystores, truststores, protocols, cipher suites, client certificates) serves the origin and knows nothing of requests, records or pipelines: it imports errors/ only.',
      from: { path: '^src/tls/' },
      to: { path: '^src/', pathNot: '^src/(tls|errors)/' },
    },
    {
      name: 'auth-imports-only-errors',
      severity: 'error',
      comment:
        'auth/ (the authenticator contract, the precedence of methods, basic and SPNEGO) decides from request headers who sent a request; it knows nothing of the origin, records or pipelines: it imports errors/ only.',
      from: { path: '^src/auth/' },
      to: { path: '^src/', pathNot: '^src/(auth|errors)/' },
    },
    {
      name: 'idempotency-imports-only-errors',
      severity: 'error',
      comment:
        "idempotency/ (the store contract, the in-memory and Redis stores, their options) keeps keys and answers as bytes; it knows nothing of requests, records or pipelines: it imports errors/ only. The origin's step (src/origin/idempotent-request.ts) uses it.",
      from: { path: '^src/idempotency/' },
      to: { path: '^src/', pathNot: '^src/(idempotency|errors)/' },
    },
    {
      name: 'pipeline-imports-only-record-errors',
      severity: 'error',
      comment:
        'pipeline/ owns the Batch, RunnerPool and ResponseSink contracts and builds on record/ and errors/ only; the origin and the response layer implement or fill its contracts, never the other way round, and what needs a format (the record error policy) lives in the origin.',
      from: { path: '^src/pipeline/' },
      to: { path: '^src/', pathNot: '^src/(pipeline|record|errors)/' },
    },
    {
      name: 'response-not-to-origin',
      severity: 'error',
      comment:
        'response/ renders what the pipeline sent; the origin drives it, so response/ never imports origin/.',
      from: { path: '^src/response/' },
      to: { path: '^src/(origin|http|cli)/' },
    },
    {
      name: 'gateway-through-origin-contract',
      severity: 'error',
      comment:
        'gateway/ (the API gateway: routing, X-Requested-By, authenticators, authorization) builds on auth/, errors/, http/ and response/, and sees the origin only through the contract the origin owns, src/origin/gateway-service.ts (decision 0065); of tls/ only resource-file.ts (the file realm reads its users file like a keystore); it knows nothing of formats, records, pipelines or TLS stores.',
      from: { path: '^src/gateway/' },
      to: {
        path: '^src/',
        pathNot:
          '^src/(gateway|auth|errors|http|response)/|^src/origin/gateway-service\\.ts$|^src/tls/resource-file\\.ts$',
      },
    },
    {
      name: 'only-hosts-import-gateway',
      severity: 'error',
      comment:
        'The origin serves a gateway through its own contract and never imports gateway/: only the CLI and the package root do, so there is no folder cycle.',
      from: { path: '^src/', pathNot: '^src/(gateway/|cli/|index\\.ts$)' },
      to: { path: '^src/gateway/' },
    },
    {
      name: 'origin-not-to-cli',
      severity: 'error',
      comment: 'cli/ is the top: only the package root (index.ts) may re-export from it.',
      from: { path: '^src/', pathNot: '^src/(cli/|index\\.ts$)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'nothing-imports-testing',
      severity: 'error',
      comment:
        "testing/ (the `./testing` entry: createTestOrigin, inject) drives the origin from outside, as a host's tests do; nothing of the library depends on it.",
      from: { path: '^src/', pathNot: '^src/testing/' },
      to: { path: '^src/testing/' },
    },
    {
      name: 'nothing-imports-an-entry-point',
      severity: 'error',
      comment:
        'src/index.ts and src/formats/index.ts are the entry points of the package (`.` and `./formats`) only; code inside src imports the module it needs directly.',
      from: { path: '^src/', pathNot: '^src/index\\.ts$' },
      to: { path: '^src/(formats/)?index\\.ts$' },
    },
    {
      name: 'runtime-not-to-dev-dependency',
      severity: 'error',
      comment:
        'Runtime code may import only packages listed in `dependencies`; a devDependency is absent where the package is installed.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-unlisted-package',
      severity: 'error',
      comment: 'Every package runtime code imports is declared in package.json.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'unknown', 'undetermined'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
