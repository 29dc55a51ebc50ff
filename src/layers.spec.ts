import { Linter } from 'eslint';
import { parser } from 'typescript-eslint';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// eslint.config.mjs applies the same blocks to `npm run lint`.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS, TOP, layerBlocks } = require('../eslint.layers.js') as {
  LAYERS: { name: string; folders: string[] }[];
  TOP: string[];
  layerBlocks: () => Linter.Config[];
};

const root = join(__dirname, '..');
const linter = new Linter({ configType: 'flat', cwd: root });
const config: Linter.Config[] = [
  { files: ['**/*.ts'], languageOptions: { parser } },
  ...layerBlocks(),
];

/** The layer errors lint reports for `source` as the file `file` (a path under the repository). */
function layerErrors(file: string, source: string): string[] {
  return linter
    .verify(source, config, { filename: join(root, file) })
    .filter((m) => m.ruleId === 'no-restricted-imports')
    .map((m) => m.message);
}

describe('the layers of src/ (eslint.layers.js)', () => {
  it.each([
    ['src/common/ids.ts', "import { Database } from '../database/database';"],
    ['src/common/money/decimal.ts', "import { ApiKey } from '../../auth/entities/api-key.entity';"],
    ['src/common/ids.ts', "import type { FastifyRequest } from 'fastify';"],
    ['src/common/ids.ts', "import { APP_PIPE } from '@nestjs/core';"],
    ['src/common/ids.ts', "import { EntityManager } from 'typeorm';"],
    ['src/config/app-config.ts', "import { Database } from '../database/database';"],
    ['src/database/database.ts', "import { ApiKey } from '../auth/entities/api-key.entity';"],
    ['src/database/database.ts', "import { PlansService } from '../plans/plans.service';"],
    ['src/auth/api-keys.service.ts', "import { PlansModule } from '../plans/plans.module';"],
    ['src/auth/api-keys.service.ts', "import { x } from '../platform/platform.module';"],
    [
      'src/plans/plans.service.ts',
      "import { ProductsRepository } from '../catalog/products.repository';",
    ],
    [
      'src/plans/dto/plan.response.ts',
      "import { toProductResponse } from '../../catalog/dto/product.response';",
    ],
    ['src/catalog/products.service.ts', "import { main } from '../cli/cli';"],
    ['src/events/events.service.ts', "import { PlansService } from '../plans/plans.service';"],
    // A path from the root (tsconfig's baseUrl) is refused, whatever it reaches.
    ['src/common/ids.ts', "import { PlansRepository } from 'src/plans/plans.repository';"],
    ['src/plans/plans.service.ts', "import { CatalogService } from 'src/catalog/catalog.service';"],
    // The wiring at the top of src/.
    ['src/common/ids.ts', "import { AppModule } from '../app.module';"],
    ['src/plans/plans.service.ts', "import { createApp } from '../app.setup';"],
    // A lower layer's repository: reached through its service.
    [
      'src/plans/plans.service.ts',
      "import { EventsRepository } from '../events/events.repository';",
    ],
    [
      'src/catalog/products.service.ts',
      "import { IdempotencyRepository } from '../platform/idempotency/idempotency.repository';",
    ],
    ['src/webhooks/webhooks.controller.ts', "import { X } from '../auth/api-keys.repository';"],
  ])('refuses in %s: %s', (file, source) => {
    expect(layerErrors(file, source).length).toBeGreaterThan(0);
  });

  it.each([
    ['src/common/merchant.ts', "import { ForbiddenError } from './errors';"],
    ['src/common/dto/list-query.dto.ts', "import { ApiProperty } from '@nestjs/swagger';"],
    ['src/database/database.ts', "import type { DatabaseKind } from '../config/app-config';"],
    ['src/auth/api-keys.service.ts', "import { Database } from '../database/database';"],
    ['src/plans/plans.module.ts', "import { CatalogModule } from '../catalog/catalog.module';"],
    ['src/plans/plans.service.ts', "import { CatalogService } from '../catalog/catalog.service';"],
    [
      'src/plans/entities/price.entity.ts',
      "import { BillableMetric } from '../../catalog/entities/billable-metric.entity';",
    ],
    ['src/plans/plans.service.ts', "import { PlansRepository } from './plans.repository';"],
    ['src/cli/cli.ts', "import { ApiKeysService } from '../auth/api-keys.service';"],
    ['src/webhooks/webhooks.controller.ts', "import { Caller } from '../platform/caller';"],
    ['src/plans/dto/plan.response.ts', "import { X } from '../plans.repository';"],
    [
      'src/platform/idempotency/idempotency.interceptor.ts',
      "import { IdempotencyRepository } from './idempotency.repository';",
    ],
    ['src/cli/cli.ts', "import { AppModule } from '../app.module';"],
  ])('allows in %s: %s', (file, source) => {
    expect(layerErrors(file, source)).toEqual([]);
  });

  it('has every folder of src/ in a layer or above them all, so that none escapes the rules', () => {
    const placed = new Set([...LAYERS.flatMap((l) => l.folders), ...TOP]);
    const folders = readdirSync(join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(folders.filter((f) => !placed.has(f))).toEqual([]);
  });
});
