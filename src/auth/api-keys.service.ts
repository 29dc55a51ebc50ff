import { Injectable } from '@nestjs/common';
import { hash, randomInt } from 'node:crypto';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { characters } from '../common/metadata';
import { isBlank } from '../common/text';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { Database } from '../database/database';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKey } from './entities/api-key.entity';
import { Organization } from './entities/organization.entity';

export const API_KEY_PATTERN = /^sk_(live|test)_[0-9A-Za-z]{32}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Who is calling: the key's organization and mode (true for an sk_live_ key, false for sk_test_),
 * attached to the request by the bearer strategy.
 */
export interface Principal {
  organizationId: string;
  apiKeyId: string;
  livemode: boolean;
}

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** A new key: sk_live_ or sk_test_ and 32 base62 characters (about 190 random bits). */
export function generateApiKey(mode: 'live' | 'test' = 'live'): string {
  let body = '';
  for (let i = 0; i < 32; i++) body += BASE62[randomInt(62)];
  return `sk_${mode}_${body}`;
}

function organizationView(o: Organization) {
  return {
    id: o.id,
    object: 'organization' as const,
    name: o.name,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

function apiKeyView(k: ApiKey) {
  return {
    id: k.id,
    object: 'apiKey' as const,
    organizationId: k.organizationId,
    mode: k.mode,
    /** The key's last four characters, to tell keys apart. */
    last4: k.last4,
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

type OrganizationView = ReturnType<typeof organizationView>;
type ApiKeyView = ReturnType<typeof apiKeyView>;

/**
 * How long a key found live is taken as live without asking the database again. A revocation,
 * wherever it is made (this process, another instance, the command line), so takes effect
 * everywhere within this time: docs/api.md §2's one second. This process forgets a key it
 * revokes at once.
 */
export const API_KEY_CACHE_TTL_MS = 1_000;
/** At most this many keys are remembered; the oldest entry goes first. */
const API_KEY_CACHE_SIZE = 10_000;

/**
 * Live keys recently seen, by hash (never the key itself), so a busy key costs one database
 * lookup a second instead of one per request. Unknown and revoked keys are never cached: a key
 * created a moment ago works on its first request.
 */
class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; checkedAt: number }>();

  get(keyHash: string, now = Date.now()): Principal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (now - entry.checkedAt < API_KEY_CACHE_TTL_MS) return entry.principal;
    this.entries.delete(keyHash);
    return undefined;
  }

  set(keyHash: string, principal: Principal, checkedAt: number): void {
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { principal, checkedAt });
    if (this.entries.size > API_KEY_CACHE_SIZE) {
      this.entries.delete(this.entries.keys().next().value!);
    }
  }

  forgetKey(apiKeyId: string): void {
    for (const [hash, entry] of this.entries) {
      if (entry.principal.apiKeyId === apiKeyId) this.entries.delete(hash);
    }
  }
}

/** Organizations and their API keys: created from the command line, checked on every request. */
@Injectable()
export class ApiKeysService {
  private readonly cache = new PrincipalCache();
  /**
   * Counts this process's revocations: a lookup that overlapped one does not fill the cache with
   * what it read before.
   */
  private revocations = 0;

  constructor(
    private readonly db: Database,
    private readonly repository: ApiKeysRepository = new ApiKeysRepository(),
  ) {}

  async createOrganization(name: string): Promise<OrganizationView> {
    if (typeof name !== 'string' || isBlank(name) || characters(name) > 200) {
      throw ValidationFailedError.field(
        'name',
        'invalid_value',
        'must be 1-200 characters and not blank',
      );
    }
    const now = new Date();
    const org = Object.assign(new Organization(), {
      id: newId(ID_PREFIXES.organization),
      name,
      createdAt: now,
      updatedAt: now,
    });
    await this.db.transaction((m) => this.repository.insertOrganization(m, org));
    return organizationView(org);
  }

  async getOrganization(id: string): Promise<OrganizationView> {
    const org = isIdOf(ID_PREFIXES.organization, id)
      ? await this.db.read((m) => this.repository.findOrganization(m, id))
      : null;
    if (!org) throw new NotFoundError('organization', id);
    return organizationView(org);
  }

  /** Every organization, newest first: how an operator finds the one a lost key belonged to. */
  async listOrganizations(): Promise<OrganizationView[]> {
    const organizations = await this.db.read((m) => this.repository.organizations(m));
    return organizations.map(organizationView);
  }

  /** Creates a key and returns it in full: the only time it is ever shown. */
  async createApiKey(
    organizationId: string,
    options: { mode?: 'live' | 'test'; key?: string } = {},
  ): Promise<ApiKeyView & { apiKey: string }> {
    await this.getOrganization(organizationId);
    const key = options.key ?? generateApiKey(options.mode ?? 'live');
    const record = Object.assign(new ApiKey(), {
      id: newId(ID_PREFIXES.apiKey),
      organizationId,
      keyHash: hashApiKey(key),
      mode: key.startsWith('sk_test_') ? 'test' : 'live',
      last4: key.slice(-4),
      createdAt: new Date(),
      revokedAt: null,
    });
    await this.db.transaction((m) => this.repository.insertKey(m, record));
    return { ...apiKeyView(record), apiKey: key };
  }

  async listApiKeys(organizationId: string): Promise<ApiKeyView[]> {
    await this.getOrganization(organizationId);
    const keys = await this.db.read((m) => this.repository.keysOf(m, organizationId));
    return keys.map(apiKeyView);
  }

  /**
   * Revokes a key; revoking it again changes nothing. This instance forgets it at once, every
   * other within API_KEY_CACHE_TTL_MS.
   */
  async revokeApiKey(id: string): Promise<ApiKeyView> {
    const view = await this.db.transaction(async (m) => {
      const key = isIdOf(ID_PREFIXES.apiKey, id) ? await this.repository.findKey(m, id) : null;
      if (!key) throw new NotFoundError('apiKey', id);
      if (!key.revokedAt) {
        key.revokedAt = new Date();
        await this.repository.revokeKey(m, id, key.revokedAt);
      }
      return apiKeyView(key);
    });
    this.revocations++;
    this.cache.forgetKey(id);
    return view;
  }

  /**
   * The principal of a live key, or null for a key that is malformed, unknown or revoked. A key
   * found live is remembered (see cachedPrincipal).
   */
  async authenticate(token: string): Promise<Principal | null> {
    if (!API_KEY_PATTERN.test(token)) return null;
    const keyHash = hashApiKey(token);
    const cached = this.cache.get(keyHash);
    if (cached) return cached;
    const revocations = this.revocations;
    const checkedAt = Date.now();
    const row = await this.db.read((m) => this.repository.liveKey(m, keyHash));
    if (!row) return null;
    const principal = {
      organizationId: row.organizationId,
      apiKeyId: row.id,
      livemode: row.mode !== 'test',
    };
    // A revocation made here while the row was on its way may postdate what the row says.
    if (revocations === this.revocations) this.cache.set(keyHash, principal, checkedAt);
    return principal;
  }

  /** The principal of a key found live within API_KEY_CACHE_TTL_MS, without I/O. */
  cachedPrincipal(token: string): Principal | undefined {
    return API_KEY_PATTERN.test(token) ? this.cache.get(hashApiKey(token)) : undefined;
  }

  /** BOOTSTRAP_API_KEY: makes sure this exact key exists, with its organization. */
  async ensureKey(
    key: string,
    organizationName: string,
  ): Promise<{ created: boolean; organizationId: string }> {
    const existing = await this.db.read((m) => this.repository.findKeyByHash(m, hashApiKey(key)));
    if (existing) return { created: false, organizationId: existing.organizationId };
    const org = await this.createOrganization(organizationName);
    await this.createApiKey(org.id, { key });
    return { created: true, organizationId: org.id };
  }

  async countOrganizations(): Promise<number> {
    return this.db.read((m) => this.repository.countOrganizations(m));
  }
}
