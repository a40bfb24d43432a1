/**
 * Which network addresses the service may reach on a user's behalf. Pure (no DNS, no sockets): the
 * guarded HTTP client (`guarded-fetch.ts`) applies it to every address it dials, and other callers
 * (capture-website's request interception, custom storage endpoints) use it on their own.
 *
 * Addresses are compared as addresses (`node:net` BlockList), never as strings: hosts written in odd
 * IPv4 notations (`0x7f.1`, `2130706433`, `0177.0.0.1`) are parsed as the WHATWG URL parser does, and
 * IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by that address.
 */
import { BlockList, isIP } from 'node:net';
import { ApiError, type Reason } from '../../kernel/errors.js';

/** Relaxations of the default (public unicast only). Each one relaxes only what it names. */
export interface AddressPolicy {
  /** Allow 127.0.0.0/8, ::1 and `localhost` (a test switch for local servers). */
  allowLoopback?: boolean;
  /** Allow RFC 1918 (10/8, 172.16/12, 192.168/16) and IPv6 unique-local (fc00::/7) addresses. */
  allowPrivate?: boolean;
  /**
   * Exact `host:port` pairs allowed whatever their address (`127.0.0.1:4569`, `[::1]:8080`,
   * `localhost:9000`). A name entry matches the requested name; an address entry the dialled address.
   */
  allowHosts?: readonly string[];
}

/** The policy for requests made on a user's behalf, from the service's test switches (lib/kernel/config.ts). */
export const userFetchPolicy = (c: { ALLOW_LOOPBACK_FETCH: boolean; FETCH_ALLOW_HOSTS: readonly string[] }): AddressPolicy => ({
  allowLoopback: c.ALLOW_LOOPBACK_FETCH,
  allowHosts: c.FETCH_ALLOW_HOSTS,
});

/** Why an address or host is refused. */
export type BlockReason =
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'link-local'
  | 'metadata'
  | 'carrier-grade-nat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved'
  | 'invalid-host';

const describeReason: Record<BlockReason, string> = {
  loopback: 'a loopback address',
  unspecified: 'the unspecified address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata endpoint',
  'carrier-grade-nat': 'a carrier-grade NAT (shared) address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'a documentation-only address',
  reserved: 'a reserved or non-global address',
  'invalid-host': 'not a valid host name or address',
};

// ---------------------------------------------------------------------------------------------------
// Errors

/** Stable machine codes, rendered as the dialect's `code`. */
export type FetchFailureCode =
  | 'FORBIDDEN_ADDRESS'
  | 'UNSUPPORTED_SCHEME'
  | 'INVALID_URL'
  | 'INVALID_REQUEST'
  | 'TOO_MANY_REDIRECTS'
  | 'BODY_NOT_REPLAYABLE'
  | 'HTTP_STATUS'
  | 'NETWORK'
  | 'TIMEOUT'
  | 'ABORTED';

const reasonOfCode: Record<FetchFailureCode, Reason> = {
  FORBIDDEN_ADDRESS: 'INVALID_ARGUMENT',
  UNSUPPORTED_SCHEME: 'INVALID_ARGUMENT',
  INVALID_URL: 'INVALID_ARGUMENT',
  INVALID_REQUEST: 'INVALID_ARGUMENT',
  TOO_MANY_REDIRECTS: 'FAILED_PRECONDITION',
  BODY_NOT_REPLAYABLE: 'FAILED_PRECONDITION',
  HTTP_STATUS: 'FAILED_PRECONDITION',
  NETWORK: 'UNAVAILABLE',
  TIMEOUT: 'DEADLINE_EXCEEDED',
  ABORTED: 'CANCELLED',
};

export interface FetchFailedOptions {
  retryable: boolean;
  /** The remote server's HTTP status, for `HTTP_STATUS` failures. */
  upstreamStatus?: number;
  cause?: unknown;
}

/**
 * An outbound request on a user's behalf failed. `retryable` says whether trying again later may
 * succeed (network errors, timeouts, 5xx, 408, 429) or not (4xx, forbidden address, bad scheme…).
 * Messages name the host and path but never the URL's userinfo or query.
 */
export class FetchFailedError extends ApiError {
  readonly retryable: boolean;
  readonly upstreamStatus?: number;

  constructor(
    readonly failure: FetchFailureCode,
    message: string,
    opts: FetchFailedOptions,
  ) {
    super(reasonOfCode[failure], message, { code: failure, cause: opts.cause });
    Object.defineProperty(this, 'name', { value: new.target.name, enumerable: false, configurable: true });
    this.retryable = opts.retryable;
    this.upstreamStatus = opts.upstreamStatus;
  }
}

/** The host, or an address it resolved to, is one the service must not reach. Never retryable. */
export class ForbiddenAddressError extends FetchFailedError {
  constructor(
    /** The host as requested (name or address), without userinfo. */
    readonly host: string,
    readonly blockReason: BlockReason,
    /** The resolved address that was refused, when it differs from `host`. */
    readonly address?: string,
  ) {
    const shown = address !== undefined && address !== host ? `"${host}" (resolves to ${address})` : `"${host}"`;
    super('FORBIDDEN_ADDRESS', `Refusing to connect to ${shown}: ${describeReason[blockReason]}.`, { retryable: false });
  }
}

// ---------------------------------------------------------------------------------------------------
// Address ranges

function blockList(family: 'ipv4' | 'ipv6', entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [net, bits] = entry.split('/');
    if (bits === undefined) list.addAddress(net!, family);
    else list.addSubnet(net!, Number(bits), family);
  }
  return list;
}

interface Rule {
  reason: BlockReason;
  v4: BlockList;
  v6: BlockList;
}

/** IANA special-purpose registries (RFC 6890 and updates); the first matching rule names the reason. */
const rules: Rule[] = [
  {
    reason: 'metadata',
    // AWS/GCP/Azure/Oracle IMDS, ECS task and EKS pod-identity agents, Alibaba, Oracle legacy, AWS IMDS over IPv6.
    v4: blockList('ipv4', ['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', '192.0.0.192']),
    v6: blockList('ipv6', ['fd00:ec2::254', 'fd00:ec2::23']),
  },
  { reason: 'broadcast', v4: blockList('ipv4', ['255.255.255.255']), v6: blockList('ipv6', []) },
  { reason: 'unspecified', v4: blockList('ipv4', ['0.0.0.0']), v6: blockList('ipv6', ['::']) },
  { reason: 'loopback', v4: blockList('ipv4', ['127.0.0.0/8']), v6: blockList('ipv6', ['::1']) },
  { reason: 'link-local', v4: blockList('ipv4', ['169.254.0.0/16']), v6: blockList('ipv6', ['fe80::/10']) },
  {
    reason: 'private',
    v4: blockList('ipv4', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16']),
    v6: blockList('ipv6', ['fc00::/7']),
  },
  { reason: 'carrier-grade-nat', v4: blockList('ipv4', ['100.64.0.0/10']), v6: blockList('ipv6', []) },
  { reason: 'multicast', v4: blockList('ipv4', ['224.0.0.0/4']), v6: blockList('ipv6', ['ff00::/8']) },
  {
    reason: 'documentation',
    v4: blockList('ipv4', ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24']),
    v6: blockList('ipv6', ['2001:db8::/32', '3fff::/20']),
  },
  {
    reason: 'reserved',
    v4: blockList('ipv4', [
      '0.0.0.0/8', // "this network"
      '192.0.0.0/24', // IETF protocol assignments
      '192.88.99.0/24', // deprecated 6to4 relay anycast
      '198.18.0.0/15', // benchmarking
      '240.0.0.0/4', // future use
    ]),
    v6: blockList('ipv6', [
      '::/96', // deprecated IPv4-compatible addresses (when the embedded address is itself public)
      '::ffff:0:0:0/96', // IPv4-translated (RFC 2765)
      '64:ff9b:1::/48', // local-use NAT64 (RFC 8215)
      '100::/64', // discard-only
      '2001::/23', // IETF protocol assignments: Teredo (embeds an obfuscated IPv4), benchmarking, ORCHID
      'fec0::/10', // deprecated site-local
    ]),
  },
];

/** IPv6 prefixes whose low bits embed an IPv4 address that decides the verdict. */
const v4Mapped = blockList('ipv6', ['::ffff:0:0/96']);
const v4Translated = blockList('ipv6', ['::ffff:0:0:0/96']);
const v4Compatible = blockList('ipv6', ['::/96']);
const nat64 = blockList('ipv6', ['64:ff9b::/96']);
const sixToFour = blockList('ipv6', ['2002::/16']);
/** Everything outside IPv6 global unicast is unassigned or special. */
const globalUnicast6 = blockList('ipv6', ['2000::/3']);

function classify4(address: string): BlockReason | undefined {
  for (const rule of rules) if (rule.v4.check(address, 'ipv4')) return rule.reason;
  return undefined;
}

function classify6(address: string): BlockReason | undefined {
  const bytes = ipv6Bytes(address);
  const embedded = (offset: number) => bytes.subarray(offset, offset + 4).join('.');
  // Decided by the IPv4 address they carry.
  if (v4Mapped.check(address, 'ipv6')) return classify4(embedded(12));
  if (nat64.check(address, 'ipv6')) return classify4(embedded(12));
  if (sixToFour.check(address, 'ipv6')) return classify4(embedded(2));
  if (address !== '::' && address !== '::1') {
    // Deprecated forms: refused either way, named after the embedded address when that is refused too.
    if (v4Compatible.check(address, 'ipv6') || v4Translated.check(address, 'ipv6')) return classify4(embedded(12)) ?? 'reserved';
  }
  for (const rule of rules) if (rule.v6.check(address, 'ipv6')) return rule.reason;
  return globalUnicast6.check(address, 'ipv6') ? undefined : 'reserved';
}

/**
 * Why an IP address must not be reached, or `undefined` for a public unicast address. Throws a
 * TypeError when `ip` is not an IP address (use `parseHost` first for host strings).
 */
export function classifyAddress(ip: string): BlockReason | undefined {
  const parsed = parseHost(ip);
  if (parsed.kind !== 'ip') throw new TypeError(`Not an IP address: ${JSON.stringify(ip)}`);
  return parsed.family === 4 ? classify4(parsed.address) : classify6(parsed.address);
}

// ---------------------------------------------------------------------------------------------------
// Host parsing

export type ParsedHost =
  | { kind: 'ip'; address: string; family: 4 | 6 }
  | { kind: 'name'; name: string }
  | { kind: 'invalid' };

/** One WHATWG "IPv4 number": decimal, `0x` hex (may be empty) or leading-zero octal. */
function ipv4Number(part: string): number | undefined {
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(part)) {
    digits = part.slice(2);
    radix = 16;
    if (digits === '') return 0;
  } else if (part.length > 1 && part.startsWith('0')) {
    digits = part.slice(1);
    radix = 8;
  }
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  if (!valid.test(digits)) return undefined;
  const value = parseInt(digits, radix);
  return Number.isSafeInteger(value) ? value : Number.MAX_SAFE_INTEGER;
}

/**
 * The WHATWG URL host parser's IPv4 step: `'name'` when the host does not end in a number (so it is a
 * domain), `'invalid'` when it does but is no valid address, else the dotted-quad address.
 */
function parseIPv4Like(host: string): string | 'name' | 'invalid' {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  const last = parts[parts.length - 1] ?? '';
  const endsInNumber = /^[0-9]+$/.test(last) || (/^0x/i.test(last) && ipv4Number(last) !== undefined);
  if (!endsInNumber) return 'name';
  if (parts.length > 4) return 'invalid';
  const numbers = parts.map(ipv4Number);
  if (numbers.some((n) => n === undefined)) return 'invalid';
  const values = numbers as number[];
  const tail = values.pop()!;
  if (values.some((n) => n > 255) || tail >= 256 ** (4 - values.length)) return 'invalid';
  let address = tail;
  values.forEach((n, i) => (address += n * 256 ** (3 - i)));
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join('.');
}

/** The 16 bytes of a valid IPv6 address (zone id ignored). */
function ipv6Bytes(ip: string): Uint8Array {
  const zone = ip.indexOf('%');
  const text = zone >= 0 ? ip.slice(0, zone) : ip;
  const toGroups = (side: string): number[] => {
    if (side === '') return [];
    return side.split(':').flatMap((piece) => {
      if (!piece.includes('.')) return [parseInt(piece, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number);
      return [a * 256 + b, c * 256 + d];
    });
  };
  const [head = '', tail] = text.split('::');
  const before = toGroups(head);
  const after = tail === undefined ? [] : toGroups(tail);
  const groups = [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/** RFC 5952 text of an IPv6 address: lower-case, no leading zeros, longest zero run as `::`. */
function formatIPv6(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * A host as the URL parser would read it: lower-cased, brackets and one trailing dot removed, IPv6
 * canonicalised, IPv4 in any WHATWG notation (`0x7f.1`, `2130706433`, `0177.0.0.1`) as a dotted quad.
 */
export function parseHost(input: string): ParsedHost {
  let host = input.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    if (isIP(host) !== 6) return { kind: 'invalid' };
  }
  if (isIP(host) === 6) return { kind: 'ip', address: formatIPv6(ipv6Bytes(host)), family: 6 };
  const v4 = parseIPv4Like(host);
  if (v4 === 'invalid') return { kind: 'invalid' };
  if (v4 !== 'name') return { kind: 'ip', address: v4, family: 4 };
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (!/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name) || name.length > 253) return { kind: 'invalid' };
  return { kind: 'name', name };
}

/** Names that reach a cloud metadata service wherever they are resolved. */
const metadataNames = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
]);

// ---------------------------------------------------------------------------------------------------
// Policy

/** A parsed `allowHosts` list: `host|port` keys of canonical hosts. */
const allowListCache = new WeakMap<readonly string[], Set<string>>();

function allowedKeys(policy: AddressPolicy): Set<string> {
  const list = policy.allowHosts;
  if (list === undefined || list.length === 0) return new Set();
  let keys = allowListCache.get(list);
  if (keys) return keys;
  keys = new Set();
  for (const entry of list) {
    const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(entry);
    const parsed = match ? parseHost(match[1]!) : undefined;
    const port = match ? Number(match[2]) : NaN;
    if (!parsed || parsed.kind === 'invalid' || !(port > 0 && port < 65536)) {
      throw new TypeError(`allowHosts entries must be "host:port" or "[v6]:port", got ${JSON.stringify(entry)}`);
    }
    keys.add(`${parsed.kind === 'ip' ? parsed.address : parsed.name}|${port}`);
  }
  allowListCache.set(list, keys);
  return keys;
}

function relaxed(reason: BlockReason, policy: AddressPolicy): boolean {
  return (reason === 'loopback' && policy.allowLoopback === true) || (reason === 'private' && policy.allowPrivate === true);
}

/** Whether `host:port` is listed in `policy.allowHosts` (an unknown port never matches). */
export function isAllowListed(host: string, port: number | undefined, policy: AddressPolicy): boolean {
  if (port === undefined) return false;
  const parsed = parseHost(host);
  if (parsed.kind === 'invalid') return false;
  return allowedKeys(policy).has(`${parsed.kind === 'ip' ? parsed.address : parsed.name}|${port}`);
}

/**
 * Why `host` (an IP address in any notation, or a name) must not be reached under `policy`, or
 * `undefined` when it may. For a name this is only the static verdict (metadata names, `localhost`):
 * the addresses it resolves to must be checked too, at connection time.
 */
export function blockReason(host: string, policy: AddressPolicy = {}, port?: number): BlockReason | undefined {
  const parsed = parseHost(host);
  if (parsed.kind === 'invalid') return 'invalid-host';
  if (isAllowListed(host, port, policy)) return undefined;
  let reason: BlockReason | undefined;
  if (parsed.kind === 'ip') reason = parsed.family === 4 ? classify4(parsed.address) : classify6(parsed.address);
  else if (metadataNames.has(parsed.name)) reason = 'metadata';
  else if (parsed.name === 'localhost' || parsed.name.endsWith('.localhost')) reason = 'loopback';
  return reason !== undefined && !relaxed(reason, policy) ? reason : undefined;
}

/**
 * Throws `ForbiddenAddressError` when `address` (an IP, or a name for the static checks) must not be
 * reached under `policy`. `host` is what the caller asked for, named in the error.
 */
export function assertPublicAddress(
  address: string,
  policy: AddressPolicy = {},
  context: { host?: string; port?: number } = {},
): void {
  const host = context.host ?? address;
  const reason =
    isAllowListed(host, context.port, policy) ? undefined : blockReason(address, policy, context.port);
  if (reason !== undefined) throw new ForbiddenAddressError(host, reason, address === host ? undefined : address);
}

/** `scheme://host/path` of a URL for messages: no userinfo, query or fragment, a long path cut short. */
export function describeUrl(url: URL): string {
  const path = url.pathname.length > 80 ? `${url.pathname.slice(0, 77)}...` : url.pathname;
  return `${url.protocol}//${url.host}${path}`;
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Parses and statically checks a URL before anything connects to it: only `http:`/`https:`, a valid
 * host, no forbidden address literal, metadata name or `localhost` (unless `policy` allows it). Names
 * still need their resolved addresses checked when dialled (the guarded client and agents do that).
 */
export function checkUrl(input: string | URL, policy: AddressPolicy = {}): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchFailedError('INVALID_URL', 'The URL is not a valid absolute URL.', { retryable: false });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchFailedError(
      'UNSUPPORTED_SCHEME',
      `Unsupported URL scheme "${url.protocol.slice(0, -1).slice(0, 20)}": only http and https are allowed.`,
      { retryable: false },
    );
  }
  assertPublicAddress(url.hostname, policy, { port: portOf(url) });
  return url;
}
