import {
  CLOUD_INTERNAL_ADDRESSES,
  checkUrl,
  isPublicAddress,
  resolvePublic,
  unresolvedHostProblem,
  urlTextProblem,
} from './url-policy';

describe('webhook URL policy', () => {
  it.each([
    '127.0.0.1',
    '127.5.6.7',
    '10.0.0.1',
    '172.16.3.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '::a00:1',
    '::5db8:d822',
    '::1:0',
    '64:ff9b::a00:1',
    'ff02::1',
    // Cloud metadata and host services that address libraries class as public.
    '168.63.129.16',
    '::ffff:168.63.129.16',
    '100.100.100.200',
    '192.0.0.192',
    'fd00:ec2::254',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ['http://example.com/hook', 'https://'],
    ['ftp://example.com/hook', 'https://'],
    ['not a url', 'absolute URL'],
    ['https://user:pass@example.com/hook', 'password'],
    ['https://127.0.0.1/hook', 'internal'],
    ['https://[::1]/hook', 'internal'],
    ['https://2130706433/hook', 'internal'],
    ['https://0x7f.1/hook', 'internal'],
    ['https://169.254.169.254/latest/meta-data', 'internal'],
    ['https://[::ffff:7f00:1]/hook', 'internal'],
    ['https://[::127.0.0.1]/hook', 'internal'],
    ['https://[::a00:1]/hook', 'internal'],
    ['https://example.com:0/hook', 'port 0'],
    ['https://example.com:000/hook', 'port 0'],
  ])('refuses %s', (url, why) => {
    expect(checkUrl(url, false).problem).toContain(why);
  });

  it.each([
    [' https://example.com/hook', 'white space'],
    ['https://example.com/hook ', 'white space'],
    ['https://example.com/ho ok', 'white space'],
    ['https://exa\tmple.com/hook', 'white space'],
    ['https://example.com/hook\r\n', 'white space'],
    ['https://example.com/hook\u00a0', 'white space'],
    ['https://example.com/hook\u0000', 'control'],
    ['https://example.com/hook\u007f', 'control'],
    ['https://example.com/hook\u0085', 'control'],
    ['https://example.com/hook#', '#fragment'],
    ['https://example.com\\hook', 'backslash'],
    ['https:\\\\example.com/hook', 'backslash'],
    ['https:/example.com/hook', '"https://"'],
    ['https:example.com/hook', '"https://"'],
    ['https:///example.com/hook', '"https://"'],
    ['http:/127.0.0.1:8080/hook', '"http://"'],
  ])('refuses the text %j: it is not the URL called', (url, why) => {
    expect(checkUrl(url, true).problem).toBeNull();
    expect(urlTextProblem(url)).toContain(why);
  });

  it.each([
    ['https://example.com/hook', 'https://example.com/hook'],
    ['HTTPS://Example.COM:443/a/../hook?x=1', 'https://example.com/hook?x=1'],
    ['https://example.com', 'https://example.com/'],
    ['Http://127.0.0.1:8080/hook', 'http://127.0.0.1:8080/hook'],
  ])('takes %j, stored as the URL called: %j', (url, called) => {
    expect(urlTextProblem(url)).toBeNull();
    expect(checkUrl(url, true).url?.href).toBe(called);
  });

  it('accepts a public https URL, and http or internal addresses only when allowed', () => {
    expect(checkUrl('https://example.com/webhooks', false).problem).toBeNull();
    expect(checkUrl('https://93.184.216.34/webhooks', false).problem).toBeNull();
    expect(checkUrl('http://127.0.0.1:8080/hook', true).problem).toBeNull();
  });

  it('refuses every address of the documented cloud list, and the URLs that name them', () => {
    for (const [cidr] of CLOUD_INTERNAL_ADDRESSES) {
      const address = cidr.split('/')[0].replace(/::$/, '::1');
      expect(isPublicAddress(address)).toBe(false);
      const host = address.includes(':') ? `[${address}]` : address;
      expect(checkUrl(`https://${host}:32526/machine?comp=goalstate`, false).problem).toContain(
        'internal',
      );
    }
  });

  it('refuses a name that resolves to a loopback address without saying what it resolved to', async () => {
    const refusal = resolvePublic('localhost');
    await expect(refusal).rejects.toThrow('localhost does not resolve to public addresses only');
    await expect(refusal).rejects.not.toThrow(/127\.0\.0\.1|::1/);
    expect(unresolvedHostProblem(false)).not.toMatch(/\d+\.\d+/);
  });

  it('names WEBHOOK_ALLOW_PRIVATE_NETWORKS outside production, for what it would allow only', () => {
    const hinted = (url: string) => checkUrl(url, false, true).problem;
    expect(hinted('http://example.com/hook')).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
    expect(hinted('https://10.0.0.1/hook')).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
    expect(unresolvedHostProblem(true)).toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true');
    expect(hinted('ftp://example.com/hook')).not.toContain('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
    expect(hinted('https://user:pw@example.com/hook')).not.toContain('WEBHOOK_ALLOW_PRIVATE');
    // In production (no hint) the setting is never named.
    expect(checkUrl('http://example.com/hook', false).problem).not.toContain('WEBHOOK_ALLOW');
    expect(unresolvedHostProblem(false)).not.toContain('WEBHOOK_ALLOW');
  });
});
