import { isPublicAddress, resolvePublic, urlProblem } from './url-policy';

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
    '64:ff9b::a00:1',
    'ff02::1',
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
  ])('refuses %s', (url, why) => {
    expect(urlProblem(url, false)).toContain(why);
  });

  it('accepts a public https URL, and http or internal addresses only when allowed', () => {
    expect(urlProblem('https://example.com/webhooks', false)).toBeNull();
    expect(urlProblem('https://93.184.216.34/webhooks', false)).toBeNull();
    expect(urlProblem('http://127.0.0.1:8080/hook', true)).toBeNull();
  });

  it('refuses a name that resolves to a loopback address', async () => {
    await expect(resolvePublic('localhost')).rejects.toThrow(/not a public address/);
  });
});
