import { IncomingMessage } from 'node:http';
import { requestIdFor } from './request-id';

function requestWith(header?: string | string[]): IncomingMessage {
  return { headers: header === undefined ? {} : { 'x-request-id': header } } as IncomingMessage;
}

const NEW_ID = /^req_[0-9A-Z]{26}$/;

describe('requestIdFor', () => {
  it.each(['client-trace.42_a', 'A'.repeat(128), 'req_01JD3Y2Q6J8C4N1V9W5X7Z0ABC', 'sk_other'])(
    'takes a client id of the allowed shape: %s',
    (value) => {
      const req = requestWith(value);
      expect(requestIdFor(req)).toBe(value);
      expect((req as IncomingMessage & { id?: string }).id).toBe(value);
    },
  );

  it.each([
    ['a missing header', undefined],
    ['an empty value', ''],
    ['a value too long', 'A'.repeat(129)],
    ['a forbidden character', 'a b'],
    ['a repeated header', ['a', 'b']],
  ])('makes a new id for %s', (_what, value) => {
    expect(requestIdFor(requestWith(value))).toMatch(NEW_ID);
  });

  it.each([
    ['a live API key', 'sk_live_KfIC0123456789abcdefghijklmnopqr'],
    ['a test API key', 'sk_test_KfIC0123456789abcdefghijklmnopqr'],
    ['a webhook secret', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
    ['a key in capitals', 'SK_LIVE_KFIC0123456789ABCDEFGHIJKLMNOPQR'],
    ['a key after a prefix of the client', 'trace-sk_live_KfIC0123456789abcdefghijklmnopqr'],
    ['a webhook secret in mixed case', 'WhSec_abc'],
  ])('makes a new id instead of %s', (_what, value) => {
    const req = requestWith(value);
    const id = requestIdFor(req);
    expect(id).toMatch(NEW_ID);
    expect((req as IncomingMessage & { id?: string }).id).toBe(id);
  });
});
