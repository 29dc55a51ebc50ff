import { isBlank, normalizeDescription } from './text';

describe('isBlank (docs/api.md §1: names are not blank)', () => {
  it.each([
    ['empty', ''],
    ['spaces', '   '],
    ['tabs and line breaks', '\t\n\r\v\f'],
    ['a no-break space', '\u00a0'],
    ['an ideographic space', '\u3000'],
    ['line and paragraph separators', '\u2028\u2029'],
    ['a zero-width space', '\u200b'],
    ['a zero-width non-joiner', '\u200c'],
    ['a zero-width joiner', '\u200d'],
    ['a word joiner', '\u2060'],
    ['a byte order mark', '\ufeff'],
    ['a soft hyphen', '\u00ad'],
    ['bidirectional controls', '\u202a\u202e\u2066\u2069\u200e\u200f'],
    ['an Arabic letter mark', '\u061c'],
    ['invisible operators', '\u2061\u2062\u2063\u2064'],
    ['a Mongolian vowel separator', '\u180e'],
    ['tag characters (outside the BMP)', '\u{e0001}\u{e0041}'],
    ['format characters between spaces', ' \u200b \u2060 '],
  ])('is true for %s', (_what, text) => {
    expect(isBlank(text)).toBe(true);
  });

  it.each([
    ['a letter', 'a'],
    ['a letter among invisible characters', '\u200ba\u200d'],
    ['an emoji joined by ZWJ', '👩\u200d💻'],
    ['a digit after a BOM', '\ufeff1'],
    ['punctuation', '.'],
    ['a CJK character', '日'],
  ])('is false for %s', (_what, text) => {
    expect(isBlank(text)).toBe(false);
  });
});

describe('normalizeDescription', () => {
  it('turns "" into null and keeps anything else', () => {
    expect(normalizeDescription('')).toBeNull();
    expect(normalizeDescription(undefined)).toBeNull();
    expect(normalizeDescription(' ')).toBe(' ');
  });
});
