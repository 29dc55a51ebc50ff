import { Injectable } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import { ApiKey } from './entities/api-key.entity';
import { Organization } from './entities/organization.entity';

/** The queries of organizations and API keys, on the entity manager of the caller's unit of work. */
@Injectable()
export class ApiKeysRepository {
  async insertOrganization(m: EntityManager, organization: Organization): Promise<void> {
    await m.insert(Organization, organization);
  }

  findOrganization(m: EntityManager, id: string): Promise<Organization | null> {
    return m.findOneBy(Organization, { id });
  }

  /** Every organization, newest first. */
  organizations(m: EntityManager): Promise<Organization[]> {
    return m.find(Organization, { order: { createdAt: 'DESC', id: 'DESC' } });
  }

  countOrganizations(m: EntityManager): Promise<number> {
    return m.count(Organization);
  }

  async insertKey(m: EntityManager, key: ApiKey): Promise<void> {
    await m.insert(ApiKey, key);
  }

  findKey(m: EntityManager, id: string): Promise<ApiKey | null> {
    return m.findOneBy(ApiKey, { id });
  }

  findKeyByHash(m: EntityManager, keyHash: string): Promise<ApiKey | null> {
    return m.findOneBy(ApiKey, { keyHash });
  }

  /** The organization's keys, newest first. */
  keysOf(m: EntityManager, organizationId: string): Promise<ApiKey[]> {
    return m.find(ApiKey, { where: { organizationId }, order: { createdAt: 'DESC', id: 'DESC' } });
  }

  async revokeKey(m: EntityManager, id: string, revokedAt: Date): Promise<void> {
    await m.update(ApiKey, { id }, { revokedAt });
  }

  /** The live (unrevoked) key with this hash. */
  liveKey(m: EntityManager, keyHash: string): Promise<ApiKey | null> {
    return m.findOneBy(ApiKey, { keyHash, revokedAt: IsNull() });
  }
}
