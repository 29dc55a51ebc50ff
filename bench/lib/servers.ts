import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
/** Where each bench writes its runs and the service's logs (not committed). */
export const RESULTS_DIR = join(ROOT, 'bench', 'results');

/** What every bench starts the service with; the rate limiter still counts every request. */
export const SERVICE_ENV = {
  NODE_ENV: 'production',
  ENCRYPTION_KEY: Buffer.alloc(32, 42).toString('base64'),
  RATE_LIMIT_PER_SECOND: '1000000',
};

/** A server under load, in a child process of its own. */
export interface Target {
  url: string;
  pid: number;
  /**
   * Resolves once the process has stopped using CPU: a run's last requests (queued behind the
   * load that just ended) must not overlap the next run, least of all another process's writes.
   */
  waitIdle(): Promise<void>;
  /** CPU time (user + system) the process has used so far, in milliseconds. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** CPU time (user + system) the process used so far, in clock ticks. */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function waitForIdle(pid: number): Promise<void> {
  const deadline = Date.now() + 15_000;
  let last = cpuTicks(pid);
  let quiet = 0;
  while (quiet < 2 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const now = cpuTicks(pid);
    // At most 1 tick (10 ms) per 100 ms: timers, the idle event loop.
    quiet = now - last <= 1 ? quiet + 1 : 0;
    last = now;
  }
}

async function waitForHealth(url: string, child: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`server exited with ${child.exitCode}; see ${log}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not answer /healthz within 60 s; see ${log}`);
}

export interface StartOptions {
  databaseUrl: string;
  /** Names the log of the child's standard output and error (the service's request log). */
  name: string;
  /** Over SERVICE_ENV. */
  env?: Record<string, string>;
  /** Another script to start in place of the built service (a baseline under dist/). */
  entry?: string;
}

/** Starts the built service (node dist/src/main.js), or `entry`, on a free port. */
export async function startTarget(options: StartOptions): Promise<Target> {
  const port = await freePort();
  const entry = options.entry ?? join(ROOT, 'dist', 'src', 'main.js');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const logFile = join(RESULTS_DIR, `${options.name}.log`);
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      ...SERVICE_ENV,
      ...options.env,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(url, child, logFile);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const pid = child.pid!;
  return {
    url,
    pid,
    waitIdle: () => waitForIdle(pid),
    cpuMs: () => cpuTicks(pid) * 10, // USER_HZ is 100 on Linux
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The real application in this process, for requests sent through Fastify's inject. Its request
 * log is part of the cost and goes nowhere.
 */
export async function createInProcessApp(databaseUrl: string, logLevel: string) {
  process.env.DATABASE_URL = databaseUrl;
  // The app reads DATABASE_URL when it loads its configuration: import it after.
  const { createApp } = await import('../../src/app.setup');
  const { loadConfig } = await import('../../src/config/app-config');
  return createApp(loadConfig({ ...SERVICE_ENV, LOG_LEVEL: logLevel, DATABASE_URL: databaseUrl }), {
    logDestination: { write: () => undefined },
  });
}
