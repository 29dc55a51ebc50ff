import { SealedText } from './sealed-text';

describe('SealedText', () => {
  const key = Buffer.alloc(32, 3);
  const box = new SealedText(key, 'purpose one');

  it('opens what it sealed for the same row, and hides the text', () => {
    const sealed = box.seal('whsec_secret text', 'row_1');
    expect(sealed).not.toContain('whsec_');
    expect(Buffer.from(sealed, 'base64').toString('utf8')).not.toContain('secret');
    expect(box.open(sealed, 'row_1')).toBe('whsec_secret text');
  });

  it('seals the same text differently each time (a fresh nonce)', () => {
    expect(box.seal('same', 'row_1')).not.toBe(box.seal('same', 'row_1'));
  });

  it('does not open for another row, another purpose, another key, or once altered', () => {
    const sealed = box.seal('text', 'row_1');
    expect(() => box.open(sealed, 'row_2')).toThrow();
    expect(() => new SealedText(key, 'purpose two').open(sealed, 'row_1')).toThrow();
    expect(() =>
      new SealedText(Buffer.alloc(32, 4), 'purpose one').open(sealed, 'row_1'),
    ).toThrow();
    const raw = Buffer.from(sealed, 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(raw.toString('base64'), 'row_1')).toThrow();
  });
});
