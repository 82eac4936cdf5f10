// The run's settings: one object from flags and config, one channel into Playwright, and no
// other reader of process.env among the modules a run loads.
import { expect, test } from '@playwright/test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decodeSettings, encodeSettings, referenceSettings, REPO_ROOT, SettingsError, userDirectory } from '../../harness/settings.ts';

test('the channel carries the object unchanged and refuses anything else', () => {
  const settings = referenceSettings({ port: 1234, dir: '/tmp/x', outDir: '/tmp/out', entry: { path: 'faults/main.ts', args: ['--faults', 'send.status-not-queued'] } });
  expect(decodeSettings(encodeSettings(settings))).toEqual(settings);
  expect(() => decodeSettings('{')).toThrow(SettingsError);
  expect(() => decodeSettings(JSON.stringify({ ...settings, workers: 0 }))).toThrow(/\/workers must be >= 1/);
  expect(() => decodeSettings(JSON.stringify({ ...settings, extra: 1 }))).toThrow(/must NOT have additional properties/);
});

test("npm's INIT_CWD is where the user stands", () => {
  expect(userDirectory({ INIT_CWD: '/home/me/project' }, '/repo')).toBe('/home/me/project');
  expect(userDirectory({}, '/repo')).toBe('/repo');
});

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

test('no module a run loads reads process.env, except harness/settings.ts', () => {
  const files = [...['harness', 'reports', 'suites', 'generators'].flatMap((f) => sourceFiles(join(REPO_ROOT, f))), join(REPO_ROOT, 'playwright.config.ts')];
  const readers = files.filter((f) => /process\.env\b/.test(readFileSync(f, 'utf8'))).map((f) => relative(REPO_ROOT, f));
  expect(readers).toEqual(['harness/settings.ts']);
});
