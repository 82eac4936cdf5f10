import { readFileSync } from 'node:fs';
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
  catalogueVersion: number;
  areas: Area[];
  requirements: Requirement[];
}

export const CATALOGUE_PATH = fileURLToPath(new URL('../spec/requirements.yaml', import.meta.url));

let cached: Catalogue | undefined;

/** spec/requirements.yaml, parsed once per process. */
export function loadCatalogue(path = CATALOGUE_PATH): Catalogue {
  if (path === CATALOGUE_PATH && cached) return cached;
  const catalogue = parse(readFileSync(path, 'utf8')) as Catalogue;
  if (path === CATALOGUE_PATH) cached = catalogue;
  return catalogue;
}

/** Whether a requirement can be checked from outside at all (a test must then exist for it). */
export function isCheckable(r: Requirement): boolean {
  return r.check !== 'client-side' && r.check !== 'not-checkable';
}
