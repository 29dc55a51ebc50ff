import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiKeysService, Principal } from './api-keys.service';

/**
 * passport-http-bearer: turns `Authorization: Bearer sk_…` into the caller's Principal.
 *
 * Passport keeps strategies in one process-wide registry, so each application instance registers
 * its own under a unique name: two instances in one process (the tests run several) must each
 * check keys against their own database.
 */
export function createBearerStrategy(name: string, apiKeys: ApiKeysService) {
  class BearerStrategy extends PassportStrategy(Strategy, name) {
    async validate(token: string): Promise<Principal | false> {
      return (await apiKeys.authenticate(token)) ?? false;
    }
  }
  return new BearerStrategy();
}
