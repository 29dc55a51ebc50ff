import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { ApiKeysService, Principal } from './api-keys.service';

/** passport-http-bearer: turns `Authorization: Bearer sk_…` into the caller's Principal. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly apiKeys: ApiKeysService) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.apiKeys.authenticate(token)) ?? false;
  }
}
