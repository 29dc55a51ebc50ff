import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { resolve } from 'node:path';

/** Owner-only modes for what holds secrets at rest: the database and the encryption key. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` (and its missing parents) readable by its owner only, whatever the umask: mkdir's
 * mode is masked by the umask, so each folder created here is chmod-ed afterwards. A folder that
 * already existed is left as it is (it may be the user's own, such as the working directory).
 */
export function ensurePrivateDirectory(dir: string): void {
  const target = resolve(dir);
  const first = mkdirSync(target, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (first === undefined) return;
  // Every folder from the first one created down to the target is new.
  for (let current = target; ; current = resolve(current, '..')) {
    chmodSync(current, PRIVATE_DIRECTORY_MODE);
    if (current === first || current === resolve(current, '..')) break;
  }
}

/**
 * Makes sure `file` exists and only its owner can read or write it, whatever the umask. SQLite
 * gives the -wal, -shm and -journal files it creates beside a database the mode of the database
 * file itself, so creating the main file 0600 before SQLite opens it keeps them all private.
 * A file that already exists with wider permissions (made by an older version) is narrowed.
 */
export function ensurePrivateFile(file: string): void {
  // Created 0600 (the umask can only narrow that), then set to exactly 0600 whatever it was.
  if (!existsSync(file)) closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}
