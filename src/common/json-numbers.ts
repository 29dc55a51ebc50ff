/**
 * JSON numbers that would not come back exactly as sent. JSON.parse turns every number into a
 * double, so `12345678901234567890123` becomes 12345678901234567000000 and
 * `0.10000000000000000001` becomes 0.1, silently. Such a number is replaced by an
 * InexactNumber, which no validator takes for a number: the request is a 400 naming the field
 * instead of a stored value that differs from the one sent.
 */
export class InexactNumber {
  constructor(readonly source: string) {}
}

/**
 * A cheap first look at the raw body: only a literal with 16 or more digits or an exponent can
 * be inexact (any decimal of at most 15 significant digits survives a double). Strings that
 * look like that only cost the second, exact, pass.
 */
const MAY_BE_INEXACT = /\d[eE]|\d(?:\.?\d){15}/;

/** `1.50e1` -> `15e2`-style canonical form: sign, significant digits, decimal exponent. */
function canonical(text: string): string {
  const negative = text.startsWith('-');
  const [mantissa, exponent = '0'] = text.replace(/^[-+]/, '').split(/[eE]/);
  const [integer, fraction = ''] = mantissa.split('.');
  let digits = integer + fraction;
  let point = Number(exponent) + integer.length;
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  if (digits === '') return '0';
  return `${negative ? '-' : ''}${digits}e${point}`;
}

/** Whether the double `value` is exactly the decimal number written as `source`. */
export function isExactNumber(source: string, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  return canonical(source) === canonical(String(value));
}

function markInexact(this: unknown, _key: string, value: unknown, context?: { source?: string }) {
  if (typeof value === 'number' && context?.source !== undefined) {
    if (!isExactNumber(context.source, value)) return new InexactNumber(context.source);
  }
  return value;
}

/**
 * `parsed` (the JSON.parse of `text`), with every number that is not exactly what `text` says
 * replaced by an InexactNumber. Parses `text` a second time only when it may hold one.
 */
export function withInexactNumbersMarked(text: string, parsed: unknown): unknown {
  if (!MAY_BE_INEXACT.test(text)) return parsed;
  return JSON.parse(text, markInexact);
}
