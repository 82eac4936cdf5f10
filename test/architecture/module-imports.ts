import { readdirSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, isCallExpression, isNoSubstitutionTemplateLiteral, isStringLiteral, type Node, type SourceFile } from 'typescript/unstable/ast';

/**
 * The imports of every module in a TypeScript program, read by the TypeScript parser itself
 * rather than by a pattern over the text, so an import in a comment or a string is not one,
 * and `import type`, `export … from`, `import()` and `typeof import()` all are.
 *
 * TypeScript 7 has no in-process compiler API (`ts.preProcessFile` is gone); its API is
 * `typescript/unstable/sync`, which runs the bundled tsgo and hands back its syntax trees. It
 * is marked unstable and package.json pins the version. If an upgrade changes it, the import
 * test fails: it checks that it found the imports it knows are there.
 */

export interface ModuleImport {
  /** The importing file, relative to the project root, with '/' separators. */
  file: string;
  /** 1-based line of the module specifier. */
  line: number;
  /** The module specifier as written, or undefined for an import() of a computed value. */
  specifier: string | undefined;
}

export interface ProgramImports {
  /** Every source file of the program outside node_modules, relative to the root. */
  files: string[];
  imports: ModuleImport[];
}

/** Read the program of `tsconfig` (relative to `root`) and every import of its own files. */
export function readProgramImports(root: string, tsconfig = 'tsconfig.json'): ProgramImports {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProjects: [resolve(root, tsconfig)] }).getProjects()[0];
    if (!project) throw new Error(`no TypeScript project for ${tsconfig} under ${root}`);
    const files: string[] = [];
    const imports: ModuleImport[] = [];
    for (const fileName of project.program.getSourceFileNames()) {
      if (fileName.split('/').includes('node_modules')) continue;
      const source = project.program.getSourceFile(fileName);
      if (!source) throw new Error(`the program lists ${fileName} but has no syntax tree for it`);
      const file = relative(root, fileName).split('\\').join('/');
      files.push(file);
      imports.push(...importsOf(source, file));
    }
    return { files: files.sort(), imports };
  } finally {
    api.close();
  }
}

function importsOf(source: SourceFile, file: string): ModuleImport[] {
  const lineOf = (node: Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const lineAt = (position: number): number => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: ModuleImport[] = [];
  // `/// <reference path>` pulls another file in as surely as an import does.
  for (const reference of source.referencedFiles) found.push({ file, line: lineAt(reference.pos), specifier: reference.fileName });
  // The parser's own list: import and export declarations, import = require(), import() of a
  // string, and import types.
  for (const specifier of source.imports) found.push({ file, line: lineOf(specifier), specifier: (specifier as Node & { text: string }).text });
  // What that list cannot hold: import() of a value computed at run time.
  const visit = (node: Node): void => {
    if (isCallExpression(node) && node.expression.kind === SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (!argument || !(isStringLiteral(argument) || isNoSubstitutionTemplateLiteral(argument))) found.push({ file, line: lineOf(node), specifier: undefined });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found.sort((a, b) => a.line - b.line);
}

/** A file a program could hold: TypeScript or JavaScript, declarations included. */
export const CODE_FILE = /\.[cm]?[jt]sx?$/;

/**
 * Every code file under `root`, relative to it, skipping .git and the directories .gitignore
 * names (node_modules, reports/out/, …): what the program should hold, to compare with what
 * it does.
 */
export function codeFilesOnDisk(root: string): string[] {
  const ignored = readFileSync(resolve(root, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    // A directory is named with a trailing slash, or by a plain name, which git matches as a file or a directory (node_modules, a link or not).
    .filter((line) => line !== '' && !line.startsWith('#') && (line.endsWith('/') || !/[*?[\]!]/.test(line)))
    .map((line) => line.replace(/^\//, '').replace(/([^/])$/, '$1/'));
  // As git reads them: an entry with a slash before its last is anchored at the root, one without matches at any depth.
  const skip = (dir: string, name: string): boolean =>
    name === '.git' || ignored.some((entry) => (entry.slice(0, -1).includes('/') ? `${dir}${name}/` === entry : `${name}/` === entry));
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(resolve(root, dir), { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!skip(dir, entry.name)) walk(`${dir}${entry.name}/`);
      } else if (CODE_FILE.test(entry.name)) {
        found.push(`${dir}${entry.name}`);
      }
    }
  };
  walk('');
  return found.sort();
}
