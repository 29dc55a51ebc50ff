import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { staleReason } from '../../scripts/build-if-stale';

/** `npm start` rebuilds only when an input of the build is newer than the last build. */
describe('npm start: build only when stale (scripts/build-if-stale.ts)', () => {
  let root: string;
  let stamp: string;
  const past = (seconds: number) => new Date(Date.now() - seconds * 1000);
  const touch = (path: string, at: Date) => utimesSync(path, at, at);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'build-stale-'));
    mkdirSync(join(root, 'src', 'plans'), { recursive: true });
    mkdirSync(join(root, 'dist'));
    for (const file of ['src/main.ts', 'src/plans/plan.ts', 'tsconfig.json', 'package.json']) {
      writeFileSync(join(root, file), '{}');
      touch(join(root, file), past(60));
    }
    for (const dir of ['src/plans', 'src', '.']) touch(join(root, dir), past(60));
    stamp = join(root, 'dist', '.build-stamp');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds when there is no build yet', () => {
    expect(staleReason(root, stamp)).toBe('no build yet');
  });

  it('does not build when nothing changed since the last build', () => {
    writeFileSync(stamp, '');
    touch(stamp, past(10));
    expect(staleReason(root, stamp)).toBeNull();
  });

  it('builds when a source file, however deep, changed since', () => {
    writeFileSync(stamp, '');
    touch(stamp, past(10));
    touch(join(root, 'src/plans/plan.ts'), past(1));
    expect(staleReason(root, stamp)).toBe('src changed since the last build');
  });

  it('builds when a source file was deleted, or the configuration changed', () => {
    writeFileSync(stamp, '');
    touch(stamp, past(10));
    unlinkSync(join(root, 'src/plans/plan.ts'));
    expect(staleReason(root, stamp)).toBe('src changed since the last build');
    touch(join(root, 'src/plans'), past(60));
    expect(staleReason(root, stamp)).toBeNull();
    touch(join(root, 'tsconfig.json'), past(1));
    expect(staleReason(root, stamp)).toBe('tsconfig.json changed since the last build');
  });
});
