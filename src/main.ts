import './runtime';
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from 'nestjs-pino';
import { createApp } from './app.setup';
import { ConfigError, loadConfig } from './config/app-config';
import { databaseStartupProblem } from './database/startup-check';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  if (config.encryptionKeyGeneratedAt) {
    process.stderr.write(
      `WARNING: ENCRYPTION_KEY is not set; generated one into ${config.encryptionKeyGeneratedAt} ` +
        '(mode 0600). Set ENCRYPTION_KEY in production: bank account numbers cannot be read without it.\n',
    );
  }
  const databaseProblem = await databaseStartupProblem(config.database);
  if (databaseProblem) {
    process.stderr.write(`${databaseProblem}\n`);
    process.exit(1);
  }
  const app = await createApp(config);
  try {
    await app.listen(config.port, config.host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const why = {
      EADDRINUSE: 'another program uses that port',
      EACCES: 'this user may not use that port',
      EADDRNOTAVAIL: 'no such address on this machine',
    }[code];
    if (!why) throw err;
    // Not a fault of the service: one line naming the setting to change, not a stack trace.
    process.stderr.write(
      `Start-up failed: cannot listen on ${config.host}:${config.port} (${code}: ${why}). ` +
        'Set PORT (or HOST) to another one.\n',
    );
    await app.close();
    process.exit(1);
  }
  const { port } = app.getHttpServer().address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  app
    .get(Logger)
    .log(
      `Listening on ${config.host}:${port}: http://${host}:${port} (API docs: http://${host}:${port}/docs)`,
    );

  // SIGTERM: stop taking connections, finish requests in flight, close the database, exit 0.
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const logger = app.get(Logger);
    logger.log(`${signal} received: shutting down`);
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutSeconds * 1000);
    timer.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

bootstrap().catch((err: unknown) => {
  process.stderr.write(
    err instanceof ConfigError
      ? `${err.message}\n`
      : `Start-up failed: ${err instanceof Error ? err.stack : String(err)}\n`,
  );
  process.exit(1);
});
