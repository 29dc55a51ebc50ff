import ipaddr from 'ipaddr.js';
import { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Server-side request forgery (docs/api.md §5.7): a webhook URL is `https://` and reaches only
 * public addresses, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. The address ranges come from
 * ipaddr.js: an address is public only when its range is `unicast` (IPv4 and IPv6 alike); every
 * special range it knows (loopback, private, link-local, carrier-grade NAT, unique-local,
 * multicast, reserved, 6to4, Teredo, ...) is refused, and an IPv4-mapped IPv6 address is judged as
 * the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range() === 'unicast';
}

/** The host of a parsed URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why a URL may not be a webhook endpoint (before DNS), or null when it may. */
export function urlProblem(raw: string, allowPrivateNetworks: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL such as "https://example.com/webhooks"';
  }
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return 'must be an https:// URL';
  if (url.username !== '' || url.password !== '') {
    return 'must not hold a user name or password';
  }
  if (url.hash !== '') return 'must not have a #fragment';
  const host = hostOf(url);
  if (!allowPrivateNetworks && isIP(host) !== 0 && !isPublicAddress(host)) {
    return 'must not point at a loopback, private, link-local or otherwise internal address';
  }
  return null;
}

/** Thrown when a name resolves to an address that is not public (`resolvePublic`). */
export class BlockedAddressError extends Error {
  readonly code = 'EWEBHOOKBLOCKED';
}

/**
 * Resolves `host` and refuses it when any of its addresses is not public (a name with one
 * internal address among public ones is refused whole: which one a connection takes is not ours
 * to choose). Literal addresses are judged as they are.
 */
export async function resolvePublic(host: string): Promise<LookupAddress[]> {
  const addresses =
    isIP(host) !== 0
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true, verbatim: true });
  const blocked = addresses.find((a) => !isPublicAddress(a.address));
  if (blocked) {
    throw new BlockedAddressError(
      `${host} resolves to ${blocked.address}, which is not a public address`,
    );
  }
  return addresses;
}

/** The callback of a `lookup` given to http(s).request. */
export type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
