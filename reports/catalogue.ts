// Loads the requirement catalogue (spec/requirements.yaml) with just the checks the reporter
// relies on. The harness may hold a richer loader; this one only needs ids, areas, levels,
// checks and reasons, and must fail with a message that names the bad entry.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { InputError } from './errors.ts';
import type { Area, Catalogue, Check, Level, Requirement } from './types.ts';

const LEVEL_SET = new Set<Level>(['document', 'standard', 'profile']);
const CHECK_SET = new Set<Check>(['black-box', 'fixture', 'hook', 'client-side', 'not-checkable']);
export const REQUIREMENT_ID = /^[A-Z][A-Z0-9]*-\d{3}$/;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(entry: Record<string, unknown>, key: string, where: string): string {
  const v = entry[key];
  if (typeof v !== 'string' || v.trim() === '') throw new InputError(`${where}: "${key}" must be a non-empty string`);
  return v;
}

/** Validates an already-parsed catalogue document. */
export function parseCatalogue(doc: unknown, file: string, profileName?: string): Catalogue {
  if (!isRecord(doc)) throw new InputError(`${file}: not a YAML mapping`);
  const iface = doc.interface;
  if (typeof iface !== 'string' && typeof iface !== 'number') throw new InputError(`${file}: "interface" (the interface version) is missing`);
  if (!Array.isArray(doc.areas)) throw new InputError(`${file}: "areas" must be a list`);
  if (!Array.isArray(doc.requirements)) throw new InputError(`${file}: "requirements" must be a list`);

  const areas: Area[] = doc.areas.map((a, i) => {
    const where = `${file}: areas[${i}]`;
    if (!isRecord(a)) throw new InputError(`${where} is not a mapping`);
    return { id: str(a, 'id', where), title: str(a, 'title', where), ...(a.sections !== undefined ? { sections: String(a.sections) } : {}) };
  });
  const areaIds = new Set(areas.map((a) => a.id));

  const seen = new Set<string>();
  const requirements: Requirement[] = doc.requirements.map((r, i) => {
    if (!isRecord(r)) throw new InputError(`${file}: requirements[${i}] is not a mapping`);
    const id = str(r, 'id', `${file}: requirements[${i}]`);
    const where = `${file}: ${id}`;
    if (!REQUIREMENT_ID.test(id)) throw new InputError(`${where}: id must look like AREA-NNN`);
    if (seen.has(id)) throw new InputError(`${where}: duplicate id`);
    seen.add(id);
    const area = str(r, 'area', where);
    if (!areaIds.has(area)) throw new InputError(`${where}: area "${area}" is not listed under areas`);
    const level = str(r, 'level', where) as Level;
    if (!LEVEL_SET.has(level)) throw new InputError(`${where}: level "${level}" is not one of ${[...LEVEL_SET].join(', ')}`);
    const check = str(r, 'check', where) as Check;
    if (!CHECK_SET.has(check)) throw new InputError(`${where}: check "${check}" is not one of ${[...CHECK_SET].join(', ')}`);
    const req: Requirement = { id, area, level, source: str(r, 'source', where), statement: str(r, 'statement', where), check };
    if (Array.isArray(r.needs)) req.needs = r.needs.map(String);
    if (typeof r.reason === 'string') req.reason = r.reason;
    if (r.withdrawn === true) req.withdrawn = true;
    if ((check === 'client-side' || check === 'not-checkable') && !req.reason) {
      throw new InputError(`${where}: check ${check} needs a "reason"`);
    }
    return req;
  });

  const profile = typeof doc.profile === 'string' ? doc.profile : profileName ?? profileBeside(file) ?? 'reference';
  return { interface: String(iface), profile, areas, requirements };
}

/** The profile name from profile.yaml in the catalogue's folder, when there is one. */
function profileBeside(file: string): string | undefined {
  const p = join(dirname(file), 'profile.yaml');
  if (!existsSync(p)) return undefined;
  const doc: unknown = parse(readFileSync(p, 'utf8'));
  return isRecord(doc) && typeof doc.profile === 'string' ? doc.profile : undefined;
}

export function loadCatalogue(file: string): Catalogue {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new InputError(`cannot read the requirement catalogue ${file}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new InputError(`${file} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  return parseCatalogue(doc, file);
}
