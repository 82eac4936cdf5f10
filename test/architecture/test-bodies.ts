import { relative, resolve } from 'node:path';
import { API } from 'typescript/unstable/sync';
import {
  isArrayLiteralExpression,
  isArrowFunction,
  isCallExpression,
  isFunctionDeclaration,
  isFunctionExpression,
  isIdentifier,
  isMethodDeclaration,
  isObjectLiteralExpression,
  isPropertyAssignment,
  isSpreadAssignment,
  isNoSubstitutionTemplateLiteral,
  isPropertyAccessExpression,
  isReturnStatement,
  isStringLiteral,
  isTemplateExpression,
  type CallExpression,
  type Node,
  type SourceFile,
} from 'typescript/unstable/ast';

/**
 * The conformance tests' bodies, read by the TypeScript parser (as module-imports.ts reads
 * imports): each `test(title, [details,] fn)` call, and where its function can `return` before
 * its first assertion. A test that returns there passes without having checked anything, so a
 * requirement could read "pass" with nothing checked; a test that cannot check its point calls
 * notTestable(reason) instead (harness/verdicts.ts).
 *
 * An assertion is a call of `expect` (with `.soft`, `.poll` and the matcher chain), of a helper
 * named `expect…` or `check…` (expectWrapper, checkProperty), or of `notTestable`. Returns inside
 * functions the body defines (callbacks, helpers) do not end the test and are not counted; an
 * assertion inside one, called before the return, is.
 */

export interface TestBody {
  /** Relative to the root, with '/' separators. */
  file: string;
  /** 1-based line of the test call. */
  line: number;
  /** The title as written (a template literal's text, its substitutions as `${…}`). */
  title: string;
  /** 1-based lines of the returns that can end the body before its first assertion. */
  earlyReturns: number[];
  /** The requirement IDs of its `tag` detail, without the '@'; null when that is no array of strings as written (a variable). */
  tags: string[] | null;
  /**
   * The requirement IDs its body's messages open with (`'SEND-001: …'`, a template's head too),
   * precondition messages (`'SEND-001: precondition: …'`) left out: the requirements its checks judge.
   */
  judged: string[];
}

/** A message that judges a requirement: it opens with the ID and a colon, and is no precondition. */
const JUDGING_MESSAGE = /^([A-Z]+-\d{3}): (?!precondition)/;

const TEST_MODIFIERS = new Set(['skip', 'fixme', 'fail', 'only', 'slow']);
const ASSERTION = /^(expect\w*|check[A-Z]\w*|notTestable)$/;

/** `test(…)` or `test.skip(…)`, `test.fixme(…)`, …: a call that defines a test, not test.describe or test.step. */
function isTestDefinition(call: CallExpression): boolean {
  const callee = call.expression;
  if (isIdentifier(callee)) return callee.text === 'test';
  return isPropertyAccessExpression(callee) && isIdentifier(callee.expression) && callee.expression.text === 'test' && TEST_MODIFIERS.has(callee.name.text);
}

/** The identifier a call chain starts from: `expect` for expect(x).not.toBe(y), expect.soft(x), …. */
function rootOf(node: Node): string | undefined {
  let n: Node = node;
  for (;;) {
    if (isCallExpression(n)) n = n.expression;
    else if (isPropertyAccessExpression(n)) n = n.expression;
    else break;
  }
  return isIdentifier(n) ? n.text : undefined;
}

const isFunction = (n: Node): boolean => isArrowFunction(n) || isFunctionExpression(n) || isFunctionDeclaration(n) || isMethodDeclaration(n);

function titleOf(node: Node | undefined, source: SourceFile): string {
  if (!node) return '(no title)';
  if (isStringLiteral(node) || isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (isTemplateExpression(node)) return node.getText(source).slice(1, -1);
  return node.getText(source);
}

/** The tests `source` defines, each with the returns that can end it before its first assertion. */
export function testBodiesOf(source: SourceFile, file: string): TestBody[] {
  const lineOf = (node: Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const bodies: TestBody[] = [];
  const visit = (node: Node): void => {
    if (isCallExpression(node) && isTestDefinition(node)) {
      const fn = node.arguments[node.arguments.length - 1];
      if (fn && (isArrowFunction(fn) || isFunctionExpression(fn))) {
        const earlyReturns: number[] = [];
        let asserted = false;
        // In source order, which is the order the body's statements run in until a loop or a
        // branch: a return written before every assertion can be the one that ends the test.
        const walk = (n: Node, nested: boolean): void => {
          if (asserted) return;
          if (isCallExpression(n) && ASSERTION.test(rootOf(n) ?? '')) {
            asserted = true;
            return;
          }
          if (isReturnStatement(n) && !nested) {
            // `return checkProperty(…)` asserts as it returns
            n.forEachChild((child) => walk(child, nested));
            if (!asserted) earlyReturns.push(lineOf(n));
            return;
          }
          n.forEachChild((child) => walk(child, nested || isFunction(child)));
        };
        walk(fn.body, false);
        const details = node.arguments.length > 2 ? node.arguments[1] : undefined;
        const tagged = details && isObjectLiteralExpression(details) ? details.properties.find((p) => !isSpreadAssignment(p) && isIdentifier(p.name) && p.name.text === 'tag') : undefined;
        let tags: string[] | null = [];
        const written = tagged && isPropertyAssignment(tagged) && isArrayLiteralExpression(tagged.initializer) ? [...tagged.initializer.elements] : null;
        if (written !== null && written.every((e) => isStringLiteral(e))) tags = written.map((e) => (isStringLiteral(e) ? e.text.replace(/^@/, '') : ''));
        else if (tagged) tags = null;
        const judged = new Set<string>();
        const messages = (n: Node): void => {
          const text = isStringLiteral(n) || isNoSubstitutionTemplateLiteral(n) ? n.text : isTemplateExpression(n) ? n.head.text : undefined;
          const id = text === undefined ? undefined : JUDGING_MESSAGE.exec(text)?.[1];
          if (id !== undefined) judged.add(id);
          n.forEachChild(messages);
        };
        messages(fn.body);
        bodies.push({ file, line: lineOf(node), title: titleOf(node.arguments[0], source), earlyReturns, tags, judged: [...judged].sort() });
      }
    }
    node.forEachChild(visit);
  };
  visit(source);
  return bodies;
}

/** Every test defined in the files of the program of `tsconfig` (relative to `root`) that `include` keeps. */
export function readTestBodies(root: string, include: (file: string) => boolean, tsconfig = 'tsconfig.json'): TestBody[] {
  const api = new API({ cwd: root });
  try {
    const project = api.updateSnapshot({ openProjects: [resolve(root, tsconfig)] }).getProjects()[0];
    if (!project) throw new Error(`no TypeScript project for ${tsconfig} under ${root}`);
    const bodies: TestBody[] = [];
    for (const fileName of project.program.getSourceFileNames()) {
      const file = relative(root, fileName).split('\\').join('/');
      if (file.startsWith('..') || file.split('/').includes('node_modules') || !include(file)) continue;
      const source = project.program.getSourceFile(fileName);
      if (!source) throw new Error(`the program lists ${fileName} but has no syntax tree for it`);
      bodies.push(...testBodiesOf(source, file));
    }
    return bodies.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  } finally {
    api.close();
  }
}
