/**
 * The address policy on its own: every refused range, odd host notations, IPv6 forms that embed an
 * IPv4 address, the relaxation switches, and URL checks whose errors never echo credentials.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '#lib/kernel/errors.js';
import {
  assertPublicAddress,
  blockReason,
  checkUrl,
  classifyAddress,
  FetchFailedError,
  ForbiddenAddressError,
  parseHost,
  type BlockReason,
} from '#lib/adapters/net/address-policy.js';

/** The error a function throws (fails the test if it returns). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('classifyAddress: IPv4 ranges', () => {
  const cases: Array<[string, BlockReason]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.0.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'carrier-grade-nat'],
    ['100.127.255.255', 'carrier-grade-nat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
  ];
  it.each(cases)('%s is %s', (ip, reason) => {
    expect(classifyAddress(ip)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.255.255', '11.0.0.1', '223.255.255.255'])(
    '%s is public',
    (ip) => {
      expect(classifyAddress(ip)).toBeUndefined();
    },
  );

  it('refuses to classify something that is not an address', () => {
    expect(() => classifyAddress('example.com')).toThrow(TypeError);
  });
});

describe('classifyAddress: IPv6 ranges and embedded IPv4', () => {
  const cases: Array<[string, BlockReason]> = [
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['FE80::ABCD', 'link-local'],
    ['febf::1', 'link-local'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['fec0::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'], // Teredo
    ['2001:2::1', 'reserved'], // benchmarking
    ['4000::1', 'reserved'], // outside global unicast
    ['64:ff9b:1::1', 'reserved'],
    // IPv4-mapped: judged by the IPv4 address inside.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:0.0.0.0', 'unspecified'],
    // IPv4-compatible (deprecated) and IPv4-translated.
    ['::127.0.0.1', 'loopback'],
    ['::7f00:1', 'loopback'],
    ['::8.8.8.8', 'reserved'],
    ['::ffff:0:7f00:1', 'loopback'],
    // NAT64 and 6to4 carrying a forbidden IPv4 address.
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::c0a8:101', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:7f00:0001:1234::1', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:0a00:0001::', 'private'],
  ];
  it.each(cases)('%s is %s', (ip, reason) => {
    expect(classifyAddress(ip)).toBe(reason);
  });

  it.each(['2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450::1'])(
    '%s is public',
    (ip) => {
      expect(classifyAddress(ip)).toBeUndefined();
    },
  );
});

describe('parseHost: hosts as the URL parser reads them', () => {
  const oddLoopback = ['0x7f.0.0.1', '2130706433', '0177.0.0.1', '127.1', '127.0.1', '0x7f000001', '0x7F.1', '017700000001', '127.0.0.1.', '0177.0.0.01'];
  it.each(oddLoopback)('%s is 127.0.0.1, as WHATWG URL says', (host) => {
    expect(parseHost(host)).toEqual({ kind: 'ip', address: '127.0.0.1', family: 4 });
    expect(new URL(`http://${host}/`).hostname).toBe('127.0.0.1');
    expect(blockReason(host)).toBe('loopback');
  });

  it.each([
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['0xa9.0xfe.0xa9.0xfe', '169.254.169.254'],
    ['2852039166', '169.254.169.254'],
    ['0xA9FEA9FE', '169.254.169.254'],
    ['10.1', '10.0.0.1'],
  ])('%s is %s', (host, address) => {
    expect(parseHost(host)).toEqual({ kind: 'ip', address, family: 4 });
    expect(new URL(`http://${host}/`).hostname).toBe(address);
  });

  it.each(['1.2.3.4.5', '08.0.0.1', '256.0.0.1', '1.2.3.256', '4294967296', '0x100000000', 'a b', '', 'ex ample.com', '[127.0.0.1]', '[zz::1]'])(
    '%j is not a valid host (and the URL parser agrees)',
    (host) => {
      expect(parseHost(host)).toEqual({ kind: 'invalid' });
      expect(blockReason(host)).toBe('invalid-host');
      expect(() => new URL(`http://${host}/`)).toThrow();
    },
  );

  it('canonicalises IPv6, with or without brackets', () => {
    expect(parseHost('[0:0:0:0:0:FFFF:127.0.0.1]')).toEqual({ kind: 'ip', address: '::ffff:7f00:1', family: 6 });
    expect(parseHost('2001:DB8:0:0:1:0:0:1')).toEqual({ kind: 'ip', address: '2001:db8::1:0:0:1', family: 6 });
    expect(parseHost('fe80::1%eth0')).toEqual({ kind: 'ip', address: 'fe80::1', family: 6 });
  });

  it('lower-cases names and drops one trailing dot', () => {
    expect(parseHost('Example.COM.')).toEqual({ kind: 'name', name: 'example.com' });
    expect(parseHost('1.2.3.example')).toEqual({ kind: 'name', name: '1.2.3.example' });
    // Not ending in a number, so a domain for the URL parser too.
    expect(parseHost('0x1g')).toEqual({ kind: 'name', name: '0x1g' });
    expect(new URL('http://0x1g/').hostname).toBe('0x1g');
  });

  it('is stricter than the URL parser about names DNS cannot resolve', () => {
    expect(parseHost('a..b')).toEqual({ kind: 'invalid' });
    expect(parseHost('a%2fb')).toEqual({ kind: 'invalid' });
  });
});

describe('blockReason: names and relaxations', () => {
  it.each([
    ['metadata.google.internal', 'metadata'],
    ['METADATA.GOOGLE.INTERNAL.', 'metadata'],
    ['metadata', 'metadata'],
    ['metadata.goog', 'metadata'],
    ['instance-data', 'metadata'],
    ['instance-data.ec2.internal', 'metadata'],
    ['localhost', 'loopback'],
    ['api.localhost', 'loopback'],
  ] as const)('the name %s is refused as %s', (name, reason) => {
    expect(blockReason(name)).toBe(reason);
  });

  it('passes ordinary names (their addresses are checked when dialled)', () => {
    expect(blockReason('example.com')).toBeUndefined();
    expect(blockReason('metadata.example.com')).toBeUndefined();
  });

  it('allowLoopback relaxes loopback only', () => {
    const policy = { allowLoopback: true };
    for (const host of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', '::ffff:127.0.0.1', '0x7f.1', 'localhost']) {
      expect(blockReason(host, policy), host).toBeUndefined();
    }
    expect(blockReason('0.0.0.0', policy)).toBe('unspecified');
    expect(blockReason('::', policy)).toBe('unspecified');
    expect(blockReason('10.0.0.1', policy)).toBe('private');
    expect(blockReason('169.254.169.254', policy)).toBe('metadata');
    expect(blockReason('metadata.google.internal', policy)).toBe('metadata');
    expect(blockReason('fe80::1', policy)).toBe('link-local');
  });

  it('allowPrivate relaxes RFC 1918 and unique-local only', () => {
    const policy = { allowPrivate: true };
    for (const host of ['10.0.0.1', '172.20.1.1', '192.168.0.10', 'fd12::1', '::ffff:192.168.0.1']) {
      expect(blockReason(host, policy), host).toBeUndefined();
    }
    expect(blockReason('127.0.0.1', policy)).toBe('loopback');
    expect(blockReason('100.64.0.1', policy)).toBe('carrier-grade-nat');
    expect(blockReason('fd00:ec2::254', policy)).toBe('metadata');
    expect(blockReason('169.254.1.1', policy)).toBe('link-local');
  });

  it('allowHosts allows exact host:port pairs, in any notation of the same address', () => {
    const policy = { allowHosts: ['127.0.0.1:8080', '[::1]:9090', 'LocalHost:4566', '169.254.169.254:80'] };
    expect(blockReason('127.0.0.1', policy, 8080)).toBeUndefined();
    expect(blockReason('0x7f.1', policy, 8080)).toBeUndefined();
    expect(blockReason('::1', policy, 9090)).toBeUndefined();
    expect(blockReason('[0:0::1]', policy, 9090)).toBeUndefined();
    expect(blockReason('localhost', policy, 4566)).toBeUndefined();
    expect(blockReason('169.254.169.254', policy, 80)).toBeUndefined();
    // Anything not named stays refused.
    expect(blockReason('127.0.0.1', policy, 8081)).toBe('loopback');
    expect(blockReason('127.0.0.2', policy, 8080)).toBe('loopback');
    expect(blockReason('::1', policy, 8080)).toBe('loopback');
    expect(blockReason('localhost', policy, 4567)).toBe('loopback');
    expect(blockReason('127.0.0.1', policy)).toBe('loopback'); // unknown port never matches
    expect(blockReason('169.254.169.254', policy, 8080)).toBe('metadata');
  });

  it('allowHosts by name covers the addresses that name resolves to, not others', () => {
    const policy = { allowHosts: ['localhost:4566'] };
    expect(() => assertPublicAddress('127.0.0.1', policy, { host: 'localhost', port: 4566 })).not.toThrow();
    expect(() => assertPublicAddress('127.0.0.1', policy, { host: 'evil.example', port: 4566 })).toThrow(ForbiddenAddressError);
  });

  it.each(['127.0.0.1', '127.0.0.1:0', '127.0.0.1:65536', 'http://127.0.0.1:80', '::1:80', 'a b:80'])(
    'rejects the malformed allowHosts entry %j',
    (entry) => {
      expect(() => blockReason('127.0.0.1', { allowHosts: [entry] }, 80)).toThrow(TypeError);
    },
  );
});

describe('assertPublicAddress and its errors', () => {
  it('throws a typed, non-retryable error naming the host, the address and why', () => {
    const err = thrown(() => assertPublicAddress('10.0.0.7', {}, { host: 'intranet.example', port: 80 }));
    expect(err).toBeInstanceOf(ForbiddenAddressError);
    expect(err).toBeInstanceOf(FetchFailedError);
    expect(err).toBeInstanceOf(ApiError);
    const forbidden = err as ForbiddenAddressError;
    expect(forbidden).toMatchObject({
      name: 'ForbiddenAddressError',
      failure: 'FORBIDDEN_ADDRESS',
      code: 'FORBIDDEN_ADDRESS',
      reason: 'INVALID_ARGUMENT',
      retryable: false,
      host: 'intranet.example',
      address: '10.0.0.7',
      blockReason: 'private',
    });
    expect(forbidden.expose).toBe(true);
    expect(forbidden.message).toBe('Refusing to connect to "intranet.example" (resolves to 10.0.0.7): a private-network address.');
  });

  it('passes public addresses', () => {
    expect(() => assertPublicAddress('8.8.8.8')).not.toThrow();
    expect(() => assertPublicAddress('2606:4700:4700::1111')).not.toThrow();
  });
});

describe('checkUrl', () => {
  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'data:text/plain,hi', 'javascript:alert(1)', 'gopher://example.com/', 'ws://example.com/'])(
    'refuses the scheme of %s',
    (url) => {
      const err = thrown(() => checkUrl(url));
      expect(err).toBeInstanceOf(FetchFailedError);
      expect(err).not.toBeInstanceOf(ForbiddenAddressError);
      expect(err).toMatchObject({ failure: 'UNSUPPORTED_SCHEME', retryable: false });
    },
  );

  it('refuses a relative or malformed URL', () => {
    expect(thrown(() => checkUrl('/just/a/path'))).toMatchObject({ failure: 'INVALID_URL', retryable: false });
    expect(thrown(() => checkUrl('http://1.2.3.4.5/'))).toMatchObject({ failure: 'INVALID_URL' });
  });

  it.each([
    ['http://127.0.0.1/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://2130706433:8080/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    ['http://[64:ff9b::7f00:1]/', 'loopback'],
    ['http://[2002:a9fe:a9fe::]/', 'metadata'],
    ['http://0/', 'unspecified'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://metadata.google.internal./computeMetadata/v1/', 'metadata'],
    ['https://LOCALHOST:443/', 'loopback'],
    ['http://[fe80::1%25eth0]/', 'invalid-host'],
  ] as const)('refuses %s (%s)', (url, reason) => {
    let err: Error;
    try {
      checkUrl(url);
      throw new Error('expected a throw');
    } catch (e) {
      err = e as Error;
    }
    // The URL parser itself refuses zone ids; either way nothing is dialled.
    if (reason === 'invalid-host') expect(err).toMatchObject({ failure: 'INVALID_URL' });
    else expect(err).toMatchObject({ failure: 'FORBIDDEN_ADDRESS', blockReason: reason });
  });

  it('never echoes userinfo or query in its message', () => {
    const err = thrown(() => checkUrl('http://alice:hunter2@169.254.169.254/path?X-Amz-Signature=sekret#frag'));
    expect(err.message).toContain('169.254.169.254');
    expect(err.message).toContain('metadata');
    for (const secret of ['alice', 'hunter2', 'sekret', 'Signature', 'frag']) expect(err.message).not.toContain(secret);
  });

  it('returns the parsed URL for a public host, and honours the policy', () => {
    expect(checkUrl('https://example.com/a?b=c').href).toBe('https://example.com/a?b=c');
    expect(checkUrl('http://127.0.0.1:3000/', { allowLoopback: true }).port).toBe('3000');
    expect(checkUrl('http://127.0.0.1:3000/', { allowHosts: ['127.0.0.1:3000'] }).port).toBe('3000');
    expect(() => checkUrl('http://127.0.0.1:3001/', { allowHosts: ['127.0.0.1:3000'] })).toThrow(ForbiddenAddressError);
    expect(() => checkUrl('http://127.0.0.1/', { allowHosts: ['127.0.0.1:80'] })).not.toThrow();
    expect(() => checkUrl('https://127.0.0.1/', { allowHosts: ['127.0.0.1:80'] })).toThrow(ForbiddenAddressError);
  });
});
