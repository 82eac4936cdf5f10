// The expected-failure baseline: requirement IDs known to fail on one target, each with a
// reason, so a CI gate fails only on regressions. YAML or JSON:
//
//   target: acme-sms            # optional, for the reader
//   expectedFailures:
//     - id: SEND-004
//       reason: "sendFrom ownership not enforced yet (ACME-123)"
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { REQUIREMENT_ID } from './catalogue.ts';
import { InputError } from './errors.ts';

export interface BaselineEntry {
  id: string;
  reason: string;
}

export interface Baseline {
  file: string;
  target?: string;
  expectedFailures: BaselineEntry[];
}

export function parseBaseline(doc: unknown, file: string): Baseline {
  const bad = (why: string): never => {
    throw new InputError(`baseline ${file}: ${why}`);
  };
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) bad('expected a mapping with "expectedFailures"');
  const d = doc as Record<string, unknown>;
  for (const k of Object.keys(d)) if (k !== 'target' && k !== 'expectedFailures') bad(`unknown key "${k}" (allowed: target, expectedFailures)`);
  if (!Array.isArray(d.expectedFailures)) bad('"expectedFailures" must be a list of {id, reason}');
  const seen = new Set<string>();
  const expectedFailures = (d.expectedFailures as unknown[]).map((e, i) => {
    if (typeof e !== 'object' || e === null) return bad(`expectedFailures[${i}] must be a mapping {id, reason}`);
    const { id, reason } = e as Record<string, unknown>;
    if (typeof id !== 'string' || !REQUIREMENT_ID.test(id)) return bad(`expectedFailures[${i}].id must be a requirement ID like SEND-004`);
    if (typeof reason !== 'string' || reason.trim() === '') return bad(`${id} needs a "reason"`);
    if (seen.has(id)) return bad(`${id} is listed twice`);
    seen.add(id);
    return { id, reason };
  });
  return { file, ...(typeof d.target === 'string' ? { target: d.target } : {}), expectedFailures };
}

export function loadBaseline(file: string): Baseline {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError(`cannot read baseline file ${file}`);
  }
  let doc: unknown;
  try {
    doc = parse(text); // YAML is a superset of JSON: one parser for both
  } catch (e) {
    throw new InputError(`baseline ${file} is not valid YAML or JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  return parseBaseline(doc, file);
}
