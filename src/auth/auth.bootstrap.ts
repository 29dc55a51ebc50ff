import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ApiKeysService } from './api-keys.service';

/**
 * On start-up: BOOTSTRAP_API_KEY is made to exist; otherwise, outside production, an empty
 * database gets a "Development" organization and one key, printed once to standard output, and
 * a later start says how to make another.
 */
@Injectable()
export class AuthBootstrap implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly apiKeys: ApiKeysService,
    private readonly logger: PinoLogger,
  ) {
    logger.setContext('AuthBootstrap');
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.bootstrapApiKey) {
      const { created, organizationId } = await this.apiKeys.ensureKey(
        this.config.bootstrapApiKey,
        this.config.bootstrapOrganizationName,
      );
      this.logger.info({ organizationId, created }, 'BOOTSTRAP_API_KEY is ready');
      return;
    }
    if (!this.config.printDevelopmentKey) return;
    if ((await this.apiKeys.countOrganizations()) > 0) {
      // A newcomer's second start: say where a key comes from now, since none is printed.
      this.logger.info(
        'No API key is printed: the first start of this database printed one. Lost it? ' +
          'npm run -s cli -- organizations:list, then api-keys:create --organization <org_id> --mode test',
      );
      return;
    }
    const org = await this.apiKeys.createOrganization('Development');
    const key = await this.apiKeys.createApiKey(org.id, { mode: 'test' });
    process.stdout.write(
      [
        '',
        `Test-mode API key for the Development organization ${org.id} (shown once, keep it):`,
        `  ${key.apiKey}`,
        'It works in test mode: it sees only test data, and bank accounts are verified by the sandbox.',
        `Try: curl -H "Authorization: Bearer ${key.apiKey}" http://localhost:${this.config.port}/v0/plans`,
        `Make more with: npm run -s cli -- api-keys:create --organization ${org.id} --mode test|live`,
        '',
      ].join('\n') + '\n',
    );
  }
}
