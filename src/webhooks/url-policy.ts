import ipaddr from 'ipaddr.js';
import { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** IPv4-compatible IPv6 addresses (::a.b.c.d, deprecated by RFC 4291), unicast to ipaddr.js. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/**
 * Server-side request forgery (docs/api.md §5.7): a webhook URL is `https://` and reaches only
 * public addresses, unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true. The address ranges come from
 * ipaddr.js: an address is public only when its range is `unicast` (IPv4 and IPv6 alike); every
 * special range it knows (loopback, private, link-local, carrier-grade NAT, unique-local,
 * multicast, reserved, 6to4, Teredo, ...) is refused, an IPv4-mapped IPv6 address is judged as
 * the IPv4 address it carries, and the deprecated IPv4-compatible range (::/96) is refused whole.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  const cloudInternal = CLOUD_INTERNAL.some(
    ([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits),
  );
  return !cloudInternal && parsed.range() === 'unicast';
}

/**
 * Addresses that address libraries class as public but that reach a cloud provider's own
 * services from inside a virtual machine (docs/webhooks.md, "Addresses refused"): metadata and
 * host-service endpoints that answer whoever asks from inside, with credentials at times.
 */
export const CLOUD_INTERNAL_ADDRESSES = [
  // Azure's host service (WireServer, the VM agent's channel) and its DNS/DHCP.
  ['168.63.129.16/32', 'Azure WireServer and platform DNS'],
  // Oracle Cloud's metadata service on its classic address.
  ['192.0.0.192/32', 'Oracle Cloud Infrastructure metadata (classic)'],
  // Alibaba Cloud's metadata service.
  ['100.100.100.200/32', 'Alibaba Cloud metadata'],
  // AWS's metadata, DNS and time service over IPv6 (Nitro): fd00:ec2::/32 is unique-local, but
  // named here so that the list is whole.
  ['fd00:ec2::/32', 'AWS instance metadata, DNS and time over IPv6'],
] as const;

const CLOUD_INTERNAL = CLOUD_INTERNAL_ADDRESSES.map(([cidr]) => ipaddr.parseCIDR(cidr));

/** The host of a parsed URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** A URL checked before DNS: parsed when it may be a webhook endpoint, or why it may not. */
export type CheckedUrl = { url: URL; problem: null } | { url: null; problem: string };

/**
 * What a refusal of an `http://` or internal URL adds outside production: how a developer
 * reaches a receiver on their own machine (a newcomer could not find the setting).
 */
export const DEVELOPMENT_HINT =
  ' (on your own machine, start the service with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow ' +
  'http:// and private addresses; never in production)';

/**
 * Parses a webhook URL and checks it before DNS (`problem` says why not, or is null). `hint`
 * (outside production) adds DEVELOPMENT_HINT to the refusals that setting would lift.
 */
export function checkUrl(raw: string, allowPrivateNetworks: boolean, hint = false): CheckedUrl {
  const lifted = (problem: string) => refused(hint ? problem + DEVELOPMENT_HINT : problem);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refused('must be an absolute URL such as "https://example.com/webhooks"');
  }
  const schemes = allowPrivateNetworks ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    return url.protocol === 'http:'
      ? lifted('must be an https:// URL')
      : refused('must be an https:// URL');
  }
  if (url.username !== '' || url.password !== '') {
    return refused('must not hold a user name or password');
  }
  if (url.hash !== '') return refused('must not have a #fragment');
  if (url.port === '0') return refused('must not use port 0');
  const host = hostOf(url);
  if (!allowPrivateNetworks && isIP(host) !== 0 && !isPublicAddress(host)) {
    return lifted(INTERNAL_ADDRESS);
  }
  return { url, problem: null };
}

const INTERNAL_ADDRESS =
  'must not point at a loopback, private, link-local or otherwise internal address';

/**
 * Why a host that did not resolve to public addresses only is refused: the same words whether it
 * did not resolve or resolved to an internal address, and never the address, so that the check
 * cannot be used to map internal names (docs/api.md §5.7).
 */
export function unresolvedHostProblem(hint: boolean): string {
  return (
    'must name a host that resolves to public addresses only (not a loopback, private, ' +
    'link-local or otherwise internal one)' +
    (hint ? DEVELOPMENT_HINT : '')
  );
}

function refused(problem: string): CheckedUrl {
  return { url: null, problem };
}

/** White space (Unicode's) and control characters, which WHATWG URL parsing drops or encodes. */
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;
/** The scheme, `//` and the first character of the host, as a URL is written in full. */
const WRITTEN_IN_FULL = /^https?:\/\/[^/]/i;
/** An `@` in the authority: user information, even empty (`https://@host`, `https://:@host`). */
const USER_INFO = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i;

/**
 * Why the text of a URL that passes `checkUrl` is not the URL that would be called, or null:
 * checked when an endpoint is saved. Refused is whatever WHATWG URL parsing would strip, repair
 * or leave out of the request: white space and control characters (at either end or inside), a
 * `#` (an empty fragment too), an `@` before the host (empty user information), backslashes,
 * and `https:/host` or any other form without `//` and the host right after the scheme. What passes differs from the URL called at most in spelling
 * (the case of scheme and host, a default port, dot segments), and is stored as the URL called:
 * the WHATWG serialization of the URL that `checkUrl` parsed.
 */
export function urlTextProblem(raw: string): string | null {
  if (SPACE_OR_CONTROL.test(raw)) {
    return 'must not hold white space or control characters, at either end or inside';
  }
  if (raw.includes('\\')) return 'must not hold a backslash';
  if (raw.includes('#')) return 'must not have a #fragment, not even an empty one';
  if (USER_INFO.test(raw)) return 'must not hold a user name or password, not even an empty one';
  if (!WRITTEN_IN_FULL.test(raw)) {
    return `must begin with "${new URL(raw).protocol}//" and then the host`;
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
    // Never the address: the message reaches the endpoint's deliveries list (docs/api.md §5.7).
    throw new BlockedAddressError(`${host} does not resolve to public addresses only`);
  }
  return addresses;
}
