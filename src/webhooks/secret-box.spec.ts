import { SecretBox } from './secret-box';

describe('SecretBox', () => {
  it('opens secrets stored before it was built on SealedText (the format at rest is unchanged)', () => {
    // Sealed by the SecretBox of 50debdb (its own AES-GCM code) under a key of 32 bytes of 5.
    const stored =
      'PQMsNKcT/h95k+dHDyQAjt9oVyU/eOBV2eMwt39CEvcMMdONP0DAxo4DgnuMDebnpqhZ59Wkrt+p/5HXSC7hzoV1Kq2fEkCmxPZvj7KI88Z20Q==';
    const box = new SecretBox(Buffer.alloc(32, 5));
    expect(box.open(stored, 'we_01TESTENDPOINT')).toBe(
      'whsec_c2VjcmV0IGJ5dGVzIGZvciB0aGUgdGVzdCBvZiBmb3JtYXQ=',
    );
    expect(() => box.open(stored, 'we_01OTHERENDPOINT')).toThrow();
  });
});
