// @ts-check
/**
 * The layers of src/ (docs/architecture.md), lowest first: a folder imports only from layers
 * below it, and a feature module reaches another feature only through what that one exports
 * (its module, its service, and its entities for TypeORM relations). eslint.config.mjs applies
 * these blocks; src/layers.spec.ts proves that a crossing import fails.
 */

/** The layers, lowest first; each lists its folders under src/. */
const LAYERS = [
  { name: 'common', folders: ['common'] },
  { name: 'config', folders: ['config'] },
  { name: 'database', folders: ['database'] },
  { name: 'auth', folders: ['auth'] },
  { name: 'platform', folders: ['platform'] },
  // The outbox every write records its events in: below the features, which all use it.
  { name: 'events', folders: ['events'] },
  {
    name: 'features',
    folders: [
      'catalog',
      'plans',
      'customers',
      'subscriptions',
      'external-accounts',
      'health',
      'webhooks',
      'usage',
      'invoices',
    ],
  },
];

/** Entry points above every layer: they wire the modules and may import anything. */
const TOP = ['cli'];
/** The files at the top of src/ that wire and start the service (above every layer too). */
const TOP_FILES = ['app.module', 'app.setup', 'main'];

/** What no layer may import, whatever its place (each folder of every layer gets these). */
const EVERY_LAYER = [
  {
    // A path from the project's root (tsconfig's baseUrl) would pass the relative rules below.
    regex: '^src/',
    message:
      'Import from src/ through a relative path (../plans/plans.service), so the layer rules apply to it.',
  },
  {
    regex: `^(\\.\\./)+(${TOP_FILES.map((f) => f.replace('.', '\\.')).join('|')})$`,
    message: `${TOP_FILES.join(', ')} wire and start the service: no layer imports them.`,
  },
  {
    // A repository under another folder (one of this folder's own is reached without going up
    // into another folder): a module's queries are reached through its service.
    regex: '^(\\.\\./)+[^./][^/]*/(.+/)?[^/]+\\.repository$',
    message:
      "A repository is private to its module: use that module's service (docs/architecture.md).",
  },
];

/** Packages that `src/common` (pure helpers) may not use: Nest's core, Fastify, the database. */
const NOT_IN_COMMON = [
  '@nestjs/core',
  '@nestjs/platform-fastify',
  '@nestjs/typeorm',
  '@nestjs/passport',
  'fastify',
  'typeorm',
  'pg',
  'better-sqlite3',
  'ioredis',
];

/** A relative import that reaches `folder` at the top of src/ (any depth of `../`). */
const into = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

function layerBlocks() {
  const blocks = [];
  LAYERS.forEach((layer, index) => {
    const above = [...LAYERS.slice(index + 1).flatMap((l) => l.folders), ...TOP];
    const patterns = [...EVERY_LAYER];
    if (above.length > 0) {
      patterns.push({
        regex: into(above),
        message: `${layer.name} is below ${above.join(', ')}: it may import only from lower layers (docs/architecture.md).`,
      });
    }
    if (layer.name === 'common') {
      patterns.push({
        group: NOT_IN_COMMON,
        message: 'src/common holds pure helpers: no Nest core, Fastify or database packages.',
      });
    }
    for (const folder of layer.name === 'features' ? layer.folders : []) {
      const others = layer.folders.filter((f) => f !== folder);
      patterns.push({
        // Another feature, except its module, its service and its entities.
        regex: `^(\\.\\./)+(${others.join('|')})/(?!entities/)(?!\\2\\.module$)(?!\\2\\.service$)`,
        message: `${folder} reaches another feature only through its module, its service or its entities (docs/architecture.md).`,
      });
      blocks.push({
        files: [`src/${folder}/**/*.ts`],
        ignores: ['src/**/*.spec.ts'],
        rules: { 'no-restricted-imports': ['error', { patterns: [...patterns] }] },
      });
      patterns.pop();
    }
    if (layer.name !== 'features') {
      blocks.push({
        files: layer.folders.map((f) => `src/${f}/**/*.ts`),
        ignores: ['src/**/*.spec.ts'],
        rules: { 'no-restricted-imports': ['error', { patterns }] },
      });
    }
  });
  return blocks;
}

module.exports = { LAYERS, TOP, TOP_FILES, layerBlocks };
