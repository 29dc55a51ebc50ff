import { Linter } from 'eslint';
import { parser } from 'typescript-eslint';
import { join } from 'node:path';

// eslint.config.mjs applies the same blocks to `npm run lint`.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { layerBlocks } = require('../eslint.layers.js') as {
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
  ])('refuses in %s: %s', (file, source) => {
    expect(layerErrors(file, source)).toHaveLength(1);
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
    ['src/webhooks/webhooks.controller.ts', "import { Caller } from '../events/caller';"],
  ])('allows in %s: %s', (file, source) => {
    expect(layerErrors(file, source)).toEqual([]);
  });
});
