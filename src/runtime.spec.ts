import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MINIMUM_NODE, nodeVersionSupported } from './runtime';

describe('runtime check', () => {
  it('admits the minimum, later patches, minors and majors', () => {
    expect(nodeVersionSupported('22.14.0')).toBe(true);
    expect(nodeVersionSupported('v22.14.1')).toBe(true);
    expect(nodeVersionSupported('22.23.3')).toBe(true);
    expect(nodeVersionSupported('24.21.0')).toBe(true);
    expect(nodeVersionSupported('26.10.0')).toBe(true);
  });

  it('refuses older lines and older releases of the minimum line', () => {
    expect(nodeVersionSupported('20.20.2')).toBe(false);
    expect(nodeVersionSupported('22.13.9')).toBe(false);
    expect(nodeVersionSupported('v18.20.0')).toBe(false);
  });

  it('says the same as the engines field of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(pkg.engines.node).toBe(`>=${MINIMUM_NODE}`);
  });

  it('runs on the pinned runtime under npm scripts', () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    if (process.env.TEST_EXPECT_NODE) {
      expect(process.versions.node).toBe(process.env.TEST_EXPECT_NODE);
    } else {
      expect(process.versions.node).toBe(pkg.dependencies.node);
    }
  });
});
