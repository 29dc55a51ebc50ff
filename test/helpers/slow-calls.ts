/**
 * Delays and failures put into a real service or repository method, for the platform suites that
 * need a request to hold its place for a while (a claimed Idempotency-Key, a locked row) or to fail
 * once with an unexpected error. Spies sit on the class's prototype, so every instance of the app
 * (and a second app in the same suite) sees them; `jest.restoreAllMocks()` takes them away.
 */
type AsyncMethod = (...args: any[]) => Promise<unknown>;
type AsyncMethodName<T> = {
  [K in keyof T]: T[K] extends AsyncMethod ? K : never;
}[keyof T] &
  string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every call of `prototype[method]` waits `ms` before it runs. On a service's `create` the wait
 * comes before the write's transaction; on a repository's `update` it falls between the locked
 * read and the write, inside the transaction.
 */
export function delayCalls<T extends object>(
  prototype: T,
  method: AsyncMethodName<T>,
  ms: number,
): jest.SpyInstance {
  const original = prototype[method] as AsyncMethod;
  return jest.spyOn(prototype as any, method).mockImplementation(async function (
    this: unknown,
    ...args: unknown[]
  ) {
    await sleep(ms);
    return original.apply(this, args);
  });
}

/** The next call of `prototype[method]` throws an unexpected error (a 500); later ones run. */
export function failNextCall<T extends object>(
  prototype: T,
  method: AsyncMethodName<T>,
): jest.SpyInstance {
  return jest
    .spyOn(prototype as any, method)
    .mockImplementationOnce(() => Promise.reject(new Error('planned failure')));
}
