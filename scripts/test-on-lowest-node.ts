/**
 * Runs the test suite on the lowest Node.js release that package.json's `engines` admits, so that
 * the claim is checked: `npm run test:lowest-node [-- <jest arguments>]`.
 *
 * npm scripts run on the pinned runtime (node_modules/.bin/node); this script fetches the other
 * one from the npm registry (node-<platform>-<arch>, the packages behind the `node` package) into
 * node_modules/.cache and starts Jest on it, with that Node first on PATH for every child process.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const match = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node);
if (!match) {
  throw new Error(`engines.node must read ">=x.y.z" for this script; it reads ${pkg.engines.node}`);
}
const version = match[1];
const platform = process.platform === 'win32' ? 'win' : process.platform;
const name = `${platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${platform}-${process.arch}`;
const prefix = join(root, 'node_modules', '.cache', 'node-runtimes', version);
const binDir = join(prefix, 'node_modules', name, 'bin');
const nodeBin = join(binDir, platform === 'win' ? 'node.exe' : 'node');

if (!existsSync(nodeBin)) {
  mkdirSync(prefix, { recursive: true });
  console.log(`== fetching ${name}@${version} from the npm registry`);
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefix,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      `${name}@${version}`,
    ],
    { stdio: 'inherit', shell: process.platform === 'win32' },
  );
  if (npm.status !== 0 || !existsSync(nodeBin)) {
    console.error(`FAIL: could not install ${name}@${version} from the npm registry.`);
    process.exit(1);
  }
}

console.log(`== tests on Node.js ${version} (the lowest that engines admits)`);
const jest = spawnSync(
  nodeBin,
  [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      PATH: `${binDir}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}`,
      TEST_EXPECT_NODE: version,
    },
  },
);
process.exit(jest.status ?? 1);
