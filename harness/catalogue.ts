import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The three levels a requirement can have; kept apart end to end (catalogue, tests, report). */
export type Level = 'document' | 'standard' | 'profile';
export type Testability = 'black-box' | 'fixture' | 'hook' | 'client-side' | 'not-checkable';

export interface Requirement {
  id: string;
  area: string;
  level: Level;
  source: string;
  statement: string;
  check: Testability;
  needs?: string[];
  reason?: string;
  choice?: string;
  /** A withdrawn requirement keeps its ID (never reused) and leaves reports. */
  withdrawn?: boolean;
}

export interface Area {
  id: string;
  title: string;
  sections?: string;
}

export interface Catalogue {
  interface: string;
  /** The profile whose `profile`-level requirements this catalogue holds (spec/profile.yaml). */
  profile: string;
  areas: Area[];
  requirements: Requirement[];
}

/** The catalogue file cannot be read or breaks its format; the message names the entry. */
export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

export const CATALOGUE_PATH = fileURLToPath(new URL('../spec/requirements.yaml', import.meta.url));
export const REQUIREMENT_ID = /^[A-Z][A-Z0-9]*-\d{3}$/;
const LEVELS = new Set<Level>(['document', 'standard', 'profile']);
const CHECKS = new Set<Testability>(['black-box', 'fixture', 'hook', 'client-side', 'not-checkable']);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(entry: Record<string, unknown>, key: string, where: string): string {
  const v = entry[key];
  if (typeof v !== 'string' || v.trim() === '') throw new CatalogueError(`${where}: "${key}" must be a non-empty string`);
  return v;
}

/** Checks an already-parsed catalogue document and returns its typed form. */
export function parseCatalogue(doc: unknown, file: string, profileName?: string): Catalogue {
  if (!isRecord(doc)) throw new CatalogueError(`${file}: not a YAML mapping`);
  const iface = doc.interface;
  if (typeof iface !== 'string' && typeof iface !== 'number') throw new CatalogueError(`${file}: "interface" (the interface version) is missing`);
  if (!Array.isArray(doc.areas)) throw new CatalogueError(`${file}: "areas" must be a list`);
  if (!Array.isArray(doc.requirements)) throw new CatalogueError(`${file}: "requirements" must be a list`);

  const areas: Area[] = doc.areas.map((a, i) => {
    const where = `${file}: areas[${i}]`;
    if (!isRecord(a)) throw new CatalogueError(`${where} is not a mapping`);
    return { id: str(a, 'id', where), title: str(a, 'title', where), ...(a.sections !== undefined ? { sections: String(a.sections) } : {}) };
  });
  const areaIds = new Set(areas.map((a) => a.id));

  const seen = new Set<string>();
  const requirements: Requirement[] = doc.requirements.map((r, i) => {
    if (!isRecord(r)) throw new CatalogueError(`${file}: requirements[${i}] is not a mapping`);
    const id = str(r, 'id', `${file}: requirements[${i}]`);
    const where = `${file}: ${id}`;
    if (!REQUIREMENT_ID.test(id)) throw new CatalogueError(`${where}: id must look like AREA-NNN`);
    if (seen.has(id)) throw new CatalogueError(`${where}: duplicate id`);
    seen.add(id);
    const area = str(r, 'area', where);
    if (!areaIds.has(area)) throw new CatalogueError(`${where}: area "${area}" is not listed under areas`);
    const level = str(r, 'level', where) as Level;
    if (!LEVELS.has(level)) throw new CatalogueError(`${where}: level "${level}" is not one of ${[...LEVELS].join(', ')}`);
    const check = str(r, 'check', where) as Testability;
    if (!CHECKS.has(check)) throw new CatalogueError(`${where}: check "${check}" is not one of ${[...CHECKS].join(', ')}`);
    const req: Requirement = { id, area, level, source: str(r, 'source', where), statement: str(r, 'statement', where), check };
    if (Array.isArray(r.needs)) req.needs = r.needs.map(String);
    if (typeof r.reason === 'string') req.reason = r.reason;
    if (typeof r.choice === 'string') req.choice = r.choice;
    if (r.withdrawn === true) req.withdrawn = true;
    if (!isCheckable(req) && !req.reason) throw new CatalogueError(`${where}: check ${check} needs a "reason"`);
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

let cached: Catalogue | undefined;

/** A requirement catalogue (spec/requirements.yaml unless told), read and checked; the default one once per process. */
export function loadCatalogue(path = CATALOGUE_PATH): Catalogue {
  if (path === CATALOGUE_PATH && cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CatalogueError(`cannot read the requirement catalogue ${path}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    throw new CatalogueError(`${path} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  const catalogue = parseCatalogue(doc, path);
  if (path === CATALOGUE_PATH) cached = catalogue;
  return catalogue;
}

/** Whether a requirement can be checked from outside at all (a test must then exist for it). */
export function isCheckable(r: Requirement): boolean {
  return r.check !== 'client-side' && r.check !== 'not-checkable';
}
