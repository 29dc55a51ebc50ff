import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from '../helpers/processes';

/** README.md and every Markdown page under docs/, as paths from the repository root. */
function pages(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = `${dir}/${name}`;
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) found.push(path);
    }
  };
  walk('docs');
  return found;
}

/** The page without its fenced code blocks (examples may show anything). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  return new Set([...prose(markdown).matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1])));
}

/** Every inline link target of the page's prose: `[text](target)`. */
function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

describe('the documentation', () => {
  const all = pages();

  it('keeps the README to what a newcomer needs first (at most 200 lines)', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it.each(all)(
    '%s links only to files of the repository that exist, and to real anchors',
    (page) => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const broken: string[] = [];
      for (const target of links(text)) {
        if (/^(https?|mailto):/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const file = path === '' ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
        const fromRoot = relative(ROOT, file);
        if (fromRoot.startsWith('..')) {
          broken.push(`${target} (outside the repository)`);
        } else if (!existsSync(file)) {
          broken.push(`${target} (no such file)`);
        } else if (
          anchor &&
          file.endsWith('.md') &&
          !anchorsOf(readFileSync(file, 'utf8')).has(anchor)
        ) {
          broken.push(`${target} (no such heading)`);
        }
      }
      expect(broken).toEqual([]);
    },
  );

  it.each(all)(
    '%s cites the contract as docs/api.md, never an API.md outside the repository',
    (page) => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      expect(text).not.toMatch(/(^|[^/\w])API\.md/);
      expect(text).not.toMatch(/\.\.\/shared/);
    },
  );
});
