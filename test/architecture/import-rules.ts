import { isBuiltin } from 'node:module';
import { posix, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ModuleImport } from './module-imports.ts';

/**
 * What each folder of the project may import: ARCHITECTURE.md's layers as rules a test can
 * check. ARCHITECTURE.md shows this table between its import-rules markers, and the import
 * test checks it is the same table, so the page and the test cannot drift apart. Print it with
 * `node --import tsx test/architecture/import-rules.ts`.
 *
 * A module may always import its own folder and any package or Node built-in its rule does not
 * name. cli/, bench/ and test/ are entry points and tests: they may import anything, and only
 * they and the top-level files import them.
 */

/** Modules that do I/O, by package name (a built-in without its node: prefix). */
export const IO_MODULES = ['fs', 'http', 'https', 'http2', 'net', 'tls', 'dgram', 'child_process', 'undici'] as const;

export interface FolderRule {
  /** The folder, with its trailing slash; '' for the files at the top of the project. */
  folder: string;
  /** Project folders its modules may import besides their own; 'no modules' where none may live. */
  mayImport: readonly string[] | 'anything' | 'no modules';
  /** Why, as ARCHITECTURE.md gives it. */
  why: string;
  /** For a folder of areas (suites/): the one subfolder every area may import; no area imports another's. */
  sharedArea?: string;
  /** Packages and built-ins its modules never import, and why. */
  neverImports?: { modules: readonly string[]; why: string };
}

export const IMPORT_RULES: readonly FolderRule[] = [
  { folder: 'spec/', mayImport: 'no modules', why: 'the contract is data only' },
  { folder: 'generators/', mayImport: ['spec/'], why: 'fast-check arbitraries, pure; they may read spec/', neverImports: { modules: IO_MODULES, why: 'no I/O, no HTTP' } },
  { folder: 'harness/', mayImport: ['spec/', 'generators/'], why: 'how we talk to a target: never reference/, suites/ or reports/' },
  { folder: 'reference/', mayImport: ['spec/', 'generators/'], why: 'the server stands alone: never harness/, suites/ or reports/, nor the faults that break it' },
  { folder: 'faults/', mayImport: ['reference/', 'spec/', 'generators/'], why: 'the kill matrix\'s deliberate breaks of the reference, through its one extension point; not in the package, started only by cli/ and test/' },
  {
    folder: 'suites/',
    mayImport: ['harness/', 'generators/'],
    why: 'helpers shared by areas live in suites/support/, an area\'s own stay in its folder',
    sharedArea: 'support',
    neverImports: { modules: IO_MODULES, why: 'tests reach the target through the harness, write no files, start no servers' },
  },
  { folder: 'reports/', mayImport: ['spec/', 'harness/', 'generators/'], why: 'never suites/ or reference/: the catalogue comes through harness/catalogue.ts' },
  { folder: 'cli/', mayImport: 'anything', why: 'entry points that wire the layers together' },
  { folder: 'bench/', mayImport: 'anything', why: 'benchmarks' },
  { folder: 'test/', mayImport: 'anything', why: "the project's own unit tests" },
  { folder: '', mayImport: 'anything', why: 'playwright.config.ts wires the conformance run' },
];

/** The folder a project path belongs to: its first segment, or '' for a file at the top. */
export function folderOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '' : path.slice(0, slash + 1);
}

/** The suites area of a path under suites/ ('send' for suites/send/send.spec.ts), '' for suites/ itself. */
function areaOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? parts[1]! : '';
}

/** Where an import leads: a project file, a package or built-in, or somewhere the table cannot place. */
export type ImportTarget = { kind: 'project'; path: string } | { kind: 'package'; name: string } | { kind: 'unplaceable'; why: string };

export function placeImport(file: string, specifier: string | undefined): ImportTarget {
  if (specifier === undefined) return { kind: 'unplaceable', why: 'import() of a computed value cannot be checked' };
  if (specifier.startsWith('./') || specifier.startsWith('../')) {
    const path = posix.normalize(posix.join(posix.dirname(file), specifier));
    return path.startsWith('../') ? { kind: 'unplaceable', why: 'it leads outside the project' } : { kind: 'project', path };
  }
  if (specifier.startsWith('#')) return { kind: 'unplaceable', why: 'a package.json imports alias hides which folder it leads to' };
  if (specifier.startsWith('/') || (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !specifier.startsWith('node:'))) {
    return { kind: 'unplaceable', why: 'an absolute path or URL cannot be placed in a folder' };
  }
  const bare = specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
  const parts = bare.split('/');
  const name = bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  if (specifier.startsWith('node:') && !isBuiltin(specifier)) return { kind: 'unplaceable', why: 'no such Node built-in' };
  return { kind: 'package', name };
}

export function ruleFor(path: string): FolderRule | undefined {
  return IMPORT_RULES.find((rule) => rule.folder === folderOf(path));
}

const list = (folders: readonly string[]): string => (folders.length === 1 ? folders[0]! : `${folders.slice(0, -1).join(', ')} and ${folders[folders.length - 1]}`);

/** The rule `imp` breaks, in words, or undefined when it keeps to the table. */
export function brokenRule(imp: ModuleImport): string | undefined {
  const rule = ruleFor(imp.file);
  const from = folderOf(imp.file);
  if (!rule) return `${from} is not in the import table`;
  if (rule.mayImport === 'anything') return undefined;
  if (rule.mayImport === 'no modules') return `${from} holds no modules: ${rule.why}`;
  const target = placeImport(imp.file, imp.specifier);
  if (target.kind === 'unplaceable') return `${from} imports only what the table can place: ${target.why}`;
  if (target.kind === 'package') {
    const never = rule.neverImports;
    return never?.modules.includes(target.name) ? `${from} never imports ${target.name}: ${never.why}` : undefined;
  }
  const to = folderOf(target.path);
  if (to === from) {
    if (rule.sharedArea === undefined) return undefined;
    const [own, other] = [areaOf(imp.file), areaOf(target.path)];
    if (other === own || other === rule.sharedArea) return undefined;
    return `${from}${own}/ imports another area's folder ${to}${other}/: ${rule.why}`;
  }
  if (rule.mayImport.includes(to)) return undefined;
  return `${from} may import ${list(rule.mayImport)} only, not ${to || 'the top-level files'}: ${rule.why}`;
}

/** The table as ARCHITECTURE.md shows it. */
export function importTable(): string {
  const code = (s: string): string => `\`${s}\``;
  const rows = IMPORT_RULES.map((rule) => {
    const folder = rule.folder === '' ? 'top-level `*.ts`' : code(rule.folder);
    let may = Array.isArray(rule.mayImport) ? rule.mayImport.map(code).join(', ') : (rule.mayImport as string);
    if (rule.sharedArea !== undefined) may += `; in ${code(rule.folder)}, its own area and ${code(`${rule.folder}${rule.sharedArea}/`)} only`;
    const never = rule.neverImports ? `${rule.neverImports.modules.map(code).join(', ')} (${rule.neverImports.why})` : '';
    return `| ${folder} | ${may} | ${never} | ${rule.why} |`;
  });
  return ['| Folder | May import, besides itself | Never imports | Why |', '|---|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  console.log(importTable());
}
