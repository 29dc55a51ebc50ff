import { Injectable } from '@nestjs/common';
import { hash, randomInt } from 'node:crypto';
import { ID_PREFIXES, isIdOf, newId } from '../common/ids';
import { characters } from '../common/metadata';
import { isBlank } from '../common/text';
import { NotFoundError, ValidationFailedError } from '../common/errors';
import { DatabaseChangeFeed } from '../database/change-feed';
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

export interface OrganizationView {
  id: string;
  object: 'organization';
  name: string;
  createdAt: string;
  updatedAt: string;
}

export interface ApiKeyView {
  id: string;
  object: 'apiKey';
  organizationId: string;
  mode: 'live' | 'test';
  /** The key's last four characters, to tell keys apart. */
  last4: string;
  createdAt: string;
  revokedAt: string | null;
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

function organizationView(o: Organization): OrganizationView {
  return {
    id: o.id,
    object: 'organization',
    name: o.name,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
  };
}

function apiKeyView(k: ApiKey): ApiKeyView {
  return {
    id: k.id,
    object: 'apiKey',
    organizationId: k.organizationId,
    mode: k.mode,
    last4: k.last4,
    createdAt: k.createdAt.toISOString(),
    revokedAt: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

/**
 * How long a key that authenticated is taken as live without asking the database again, while
 * the database's change feed is trusted (see DatabaseChangeFeed): a revocation, wherever it is
 * made (this process, another instance, the command line), drops the entry as soon as it
 * commits, so this bounds only how long a cache entry lives.
 */
export const API_KEY_CACHE_TTL_MS = 5_000;
/**
 * How long an entry is used while the change feed is not trusted (PostgreSQL's listening
 * connection is down or slow): short enough that a revocation nobody heard of still takes
 * effect within docs/api.md's 1 second (§2).
 */
export const API_KEY_UNTRUSTED_TTL_MS = 500;
/** At most this many keys are remembered; the oldest entry goes first. */
const API_KEY_CACHE_SIZE = 10_000;
/** The change-feed channel a revocation is announced on, with the key's id. */
export const API_KEY_REVOKED_CHANNEL = 'api_key_revoked';

/**
 * Live keys recently seen, by hash (never the key itself), so a busy key costs one database
 * lookup per few seconds instead of one per request. Unknown and revoked keys are never cached:
 * a key created a moment ago works on its first request.
 */
class PrincipalCache {
  private readonly entries = new Map<string, { principal: Principal; checkedAt: number }>();

  get(keyHash: string, ttl: number, now = Date.now()): Principal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (now - entry.checkedAt < ttl) return entry.principal;
    if (now - entry.checkedAt >= API_KEY_CACHE_TTL_MS) this.entries.delete(keyHash);
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

  clear(): void {
    this.entries.clear();
  }
}

/** Organizations and their API keys: created from the command line, checked on every request. */
@Injectable()
export class ApiKeysService {
  private readonly cache = new PrincipalCache();
  /**
   * Counts what made cache entries stale (revocations heard, "anything may have changed"): a
   * lookup that overlapped one of them does not fill the cache with what it read before.
   */
  private invalidations = 0;

  constructor(
    private readonly db: Database,
    private readonly changes: DatabaseChangeFeed,
    private readonly repository: ApiKeysRepository = new ApiKeysRepository(db),
  ) {
    changes.subscribe(API_KEY_REVOKED_CHANNEL, (keyId) => {
      this.invalidations++;
      if (keyId === null) this.cache.clear();
      else this.cache.forgetKey(keyId);
    });
  }

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
   * Revokes a key; revoking it again changes nothing. Every instance hears of it when it
   * commits (the change feed) and stops accepting the key; this one forgets it at once.
   */
  async revokeApiKey(id: string): Promise<ApiKeyView> {
    const view = await this.db.transaction(async (m) => {
      const key = isIdOf(ID_PREFIXES.apiKey, id) ? await this.repository.findKey(m, id) : null;
      if (!key) throw new NotFoundError('apiKey', id);
      if (!key.revokedAt) {
        key.revokedAt = new Date();
        await this.repository.revokeKey(m, id, key.revokedAt);
        await this.changes.announce(m, API_KEY_REVOKED_CHANNEL, id);
      }
      return apiKeyView(key);
    });
    this.invalidations++;
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
    const cached = this.fromCache(keyHash);
    if (cached) return cached;
    const invalidations = this.invalidations;
    const checkedAt = Date.now();
    const row = await this.db.read((m) => this.repository.liveKey(m, keyHash));
    if (!row) return null;
    const principal = {
      organizationId: row.organization_id,
      apiKeyId: row.id,
      livemode: row.mode !== 'test',
    };
    // A revocation heard while the row was on its way may postdate what the row says.
    this.changes.catchUp();
    if (invalidations === this.invalidations) this.cache.set(keyHash, principal, checkedAt);
    return principal;
  }

  /**
   * The principal of a key found live moments ago and not revoked since, without I/O: within
   * API_KEY_CACHE_TTL_MS while the change feed is trusted, API_KEY_UNTRUSTED_TTL_MS otherwise.
   */
  cachedPrincipal(token: string): Principal | undefined {
    return API_KEY_PATTERN.test(token) ? this.fromCache(hashApiKey(token)) : undefined;
  }

  private fromCache(keyHash: string): Principal | undefined {
    this.changes.catchUp();
    const ttl = this.changes.trusted ? API_KEY_CACHE_TTL_MS : API_KEY_UNTRUSTED_TTL_MS;
    return this.cache.get(keyHash, ttl);
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
