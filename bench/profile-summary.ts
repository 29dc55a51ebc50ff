/**
 * Summarizes a V8 CPU profile (node --cpu-prof; `npm run bench -- --profile` writes them under
 * bench/results/profiles): self time by package or source folder, and the heaviest functions.
 *   npx ts-node --transpile-only bench/profile-summary.ts <file.cpuprofile> [top] [function]
 * With a function name, also prints the call paths that lead to that function's self time; with
 * several names separated by commas, the inclusive time of each.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<package>, or the source folder under src/, or the kind of V8 entry. */
function area(url: string, name: string): string {
  if (!url) return `(${name || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const src = /\/dist\/src\/(.+)\/[^/]+$/.exec(url) ?? /\/src\/(.+)\/[^/]+$/.exec(url);
  if (src) return `src/${src[1]}`;
  if (url.startsWith('node:')) return url;
  return url.replace(/^.*\//, '');
}

function main(): void {
  const [file, topArg, focus] = process.argv.slice(2);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
  );
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const a = area(url, functionName);
    areas.set(a, (areas.get(a) ?? 0) + us);
    const f = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '')}:${lineNumber + 1}`;
    functions.set(f, (functions.get(f) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const top = Number(topArg ?? 25);
  process.stdout.write(`total ${(total / 1e6).toFixed(1)} s sampled\n\nby area:\n`);
  for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1]).slice(0, top)) {
    process.stdout.write(`${pct(us)}  ${a}\n`);
  }
  process.stdout.write('\nby function (self time):\n');
  for (const [f, us] of [...functions].sort((x, y) => y[1] - x[1]).slice(0, top)) {
    process.stdout.write(`${pct(us)}  ${f}\n`);
  }
  if (focus?.includes(',')) {
    // Inclusive time: the samples with each named function anywhere on their stack.
    process.stdout.write('\ninclusive time (self time of everything they call):\n');
    for (const name of focus.split(',')) {
      let us = 0;
      for (const [id, t] of self) {
        for (let p: number | undefined = id; p !== undefined; p = parent.get(p)) {
          if (byId.get(p)!.callFrame.functionName === name) {
            us += t;
            break;
          }
        }
      }
      process.stdout.write(`${pct(us)}  ${name}\n`);
    }
  } else if (focus) {
    const paths = new Map<string, number>();
    for (const [id, us] of self) {
      if (byId.get(id)!.callFrame.functionName !== focus) continue;
      const chain: string[] = [];
      for (let p = parent.get(id); p !== undefined && chain.length < 8; p = parent.get(p)) {
        const { functionName, url, lineNumber } = byId.get(p)!.callFrame;
        chain.push(`${functionName || '(anonymous)'} ${area(url, functionName)}:${lineNumber + 1}`);
      }
      const key = chain.join(' < ');
      paths.set(key, (paths.get(key) ?? 0) + us);
    }
    process.stdout.write(`\ncallers of ${focus}:\n`);
    for (const [path, us] of [...paths].sort((x, y) => y[1] - x[1]).slice(0, 10)) {
      process.stdout.write(`${pct(us)}  ${path}\n`);
    }
  }
}

main();
