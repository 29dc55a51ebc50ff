/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  import { EventEmitter } from 'node:events';

  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: { setupRequest?: (request: any, context: any) => any }[];
  }

  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    statusCodeStats?: Record<string, { count: number }>;
  }

  type Instance = EventEmitter & PromiseLike<Result>;

  function autocannon(options: Options): Instance;
  export = autocannon;
}
