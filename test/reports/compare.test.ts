// npm run compare: one table, requirement × implementation, a verdict per cell.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runTsx, tempDir } from './run-fixture.ts';
import { sampleReport, writeReport } from './sample-report.ts';

test('two implementations side by side, with a verdict per requirement', async () => {
  const dir = tempDir();
  const a = writeReport(dir, sampleReport('reference'), 'reference.json');
  const b = writeReport(dir, sampleReport('acme <sms>', ['A-002', 'A-101']), 'acme.json');
  const out = join(dir, 'compare.html');
  const r = await runTsx('cli/compare.ts', [a, b, '--out', out]);
  expect(r.code, r.stderr).toBe(0);
  const html = readFileSync(out, 'utf8');
  expect(html).toContain('<th>reference</th><th>acme &lt;sms&gt;</th>');
  const row = (id: string): string => html.split('\n').find((l) => l.startsWith(`<tr id="${id}">`)) ?? '';
  expect(row('A-001').match(/class="v v-pass"/g)).toHaveLength(2);
  expect(row('A-002')).toMatch(/v-pass.*v-fail/);
  expect(row('A-101')).toMatch(/v-pass.*v-non-strict-fail/);
});

test('a file that is not a report is refused with exit 2', async () => {
  const dir = tempDir();
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, '{"verdict":"conformant"}');
  const r = await runTsx('cli/compare.ts', [bad, '--out', join(dir, 'c.html')]);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('is not a conformance report');
});
