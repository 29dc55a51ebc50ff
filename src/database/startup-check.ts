import { Client } from 'pg';
import { DatabaseConfig } from '../config/app-config';

/**
 * Before the application starts: is the PostgreSQL database of DATABASE_URL there to use? When it
 * is not, the one or two lines that say what is wrong and what to do, instead of Nest's logger,
 * retries and stack traces (a newcomer counted 65 lines for "the database does not exist").
 * Returns null when the database answers (and for SQLite, which makes its file itself).
 */
export async function databaseStartupProblem(database: DatabaseConfig): Promise<string | null> {
  if (database.kind !== 'postgres') return null;
  const url = new URL(database.url);
  const name = decodeURIComponent(url.pathname.replace(/^\//, '')) || url.username || 'postgres';
  const where = `${url.hostname}:${url.port || '5432'}`;
  const client = new Client({ connectionString: database.url, connectionTimeoutMillis: 10_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    const code = (err as { code?: string }).code;
    switch (code) {
      case '3D000':
        return (
          `Start-up failed: the PostgreSQL database "${name}" does not exist on ${where}.\n` +
          `Create it (createdb -h ${url.hostname} -p ${url.port || '5432'} ${name}, or CREATE DATABASE "${name}"; in psql), ` +
          'or set DATABASE_URL to a database that exists; the service makes its tables itself.'
        );
      case 'ECONNREFUSED':
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
      case 'ETIMEDOUT':
        return (
          `Start-up failed: cannot reach PostgreSQL at ${where} (${code}).\n` +
          'Start PostgreSQL, or set DATABASE_URL to the server that holds the database.'
        );
      case '28P01':
      case '28000':
        return (
          `Start-up failed: PostgreSQL at ${where} refused the user "${decodeURIComponent(url.username)}" (${code}).\n` +
          'Set the user and password of DATABASE_URL to ones the server accepts.'
        );
      default:
        return null; // Anything else is reported as the application meets it.
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
