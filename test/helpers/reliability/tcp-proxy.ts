import { Server, Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy on loopback between the service and its database, to take the database away
 * without touching the database server (other suites share it):
 * - `cut()`: every connection is closed and new ones are refused, as when the server stops;
 * - `blackhole()`: connections stay open but nothing gets through either way, and new ones are
 *   accepted and never answered, as when the network drops packets;
 * - `restore()`: traffic flows again (connections that were blackholed are closed first).
 */
export class TcpProxy {
  private server?: Server;
  private readonly pairs = new Set<{ client: Socket; upstream?: Socket; dead: boolean }>();
  private mode: 'pass' | 'blackhole' = 'pass';
  port = 0;
  /** Connections opened through the proxy since it started. */
  connections = 0;

  constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  async start(port = 0): Promise<number> {
    const server = createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    this.server = server;
    return this.port;
  }

  private accept(client: Socket): void {
    this.connections += 1;
    const pair: { client: Socket; upstream?: Socket; dead: boolean } = { client, dead: false };
    this.pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      pair.upstream?.destroy();
      this.pairs.delete(pair);
    });
    if (this.mode === 'blackhole') {
      pair.dead = true;
      client.on('data', () => undefined);
      return;
    }
    const upstream = connect(this.targetPort, this.targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (d) => {
      if (!pair.dead) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!pair.dead) client.write(d);
    });
  }

  /** Closes every connection and refuses new ones. */
  async cut(): Promise<void> {
    this.mode = 'pass';
    const server = this.server;
    this.server = undefined;
    const closed = server
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    for (const pair of this.pairs) {
      // destroy(), not resetAndDestroy(): a reset fails on a socket with a pending shutdown and
      // then never closes its handle, which keeps the test process alive after the suite.
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    await closed;
  }

  /** Lets nothing through, on open connections and on new ones, without closing anything. */
  blackhole(): void {
    this.mode = 'blackhole';
    for (const pair of this.pairs) pair.dead = true;
  }

  /** Traffic flows again; connections that were blackholed are closed (their bytes are lost). */
  async restore(): Promise<void> {
    this.mode = 'pass';
    for (const pair of this.pairs) {
      if (pair.dead) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
    }
    if (!this.server) await this.start(this.port);
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
