/**
 * The Node.js this service runs on. `npm ci` installs the pinned runtime (the `node` package in
 * package.json) into node_modules/.bin, and every npm script runs on it, whatever Node the machine
 * has. This check stops a process started some other way on a Node older than `engines` admits,
 * before a native module (better-sqlite3 13 needs Node-API 10) can crash it.
 *
 * It is imported first by every entry point, and must not import anything itself.
 */
export const MINIMUM_NODE = '22.14.0';

export function nodeVersionSupported(version: string, minimum = MINIMUM_NODE): boolean {
  const have = version.replace(/^v/, '').split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > need[i];
  }
  return true;
}

export function assertSupportedRuntime(version = process.versions.node): void {
  if (nodeVersionSupported(version)) return;
  process.stderr.write(
    `This service needs Node.js ${MINIMUM_NODE} or later; this process runs on ${version}.\n` +
      'Start it through npm (npm start, npm test, npm run cli): `npm ci` installs the pinned Node.js ' +
      'into node_modules and npm scripts run on it. Or install a current Node.js LTS and put it first on PATH.\n',
  );
  process.exit(1);
}

assertSupportedRuntime();
