// A small, valid report written to disk, for the tests of the CLIs that read reports.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildReport } from '../../reports/build.ts';
import type { Report } from '../../reports/types.ts';
import { catalogue, rec, req } from './records.ts';

export function sampleReport(label = 'acme sms', failing: string[] = [], filters: string[] = []): Report {
  const ids = ['A-001', 'A-002', 'A-101'];
  return buildReport({
    catalogue: catalogue([req('A-001', 'document'), req('A-002', 'document'), req('A-101', 'standard')]),
    catalogueName: 'spec/requirements.yaml',
    tests: ids.map((id) => rec([id], failing.includes(id) ? 'failed' : 'passed', {
      attempts: [{ retry: 0, status: failing.includes(id) ? 'failed' : 'passed', durationMs: 3, errors: failing.includes(id) ? [`Error: ${id} <broke>`] : [], evidence: [] }],
    })),
    target: { label, baseUrl: 'https://sms.acme.invalid', profile: null },
    strict: false,
    harness: { name: 'messaging-conformance', version: '0.1.0', gitRevision: 'a'.repeat(40), gitDirty: false },
    seed: '7',
    startTime: new Date('2026-03-01T10:00:00Z'),
    durationMs: 4200,
    playwrightStatus: failing.length ? 'failed' : 'passed',
    errors: [],
    filters,
  });
}

export function writeReport(dir: string, report: Report, name = 'report.json'): string {
  const file = join(dir, name);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}
