// The installed command's subcommands (cli/bin.js): each declared once, with the one line the
// list of commands shows and how to load it. A command's module is loaded only when it runs, so
// `verify` does not load what `certify` needs.
import type { Command } from './command.ts';

export interface Subcommand {
  summary: string;
  load(): Promise<Command>;
}

export const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  certify: { summary: 'certify a server (with no --config and no --base-url: ./conformance.yaml if there is one, else the bundled reference)', load: async () => (await import('./certify.ts')).certifyCommand },
  init: { summary: 'probe a server (--base-url) and write a commented config for it', load: async () => (await import('./init.ts')).initCommand },
  verify: { summary: 'check a signed report and say what it certifies', load: async () => (await import('./verify.ts')).verifyCommand },
  compare: { summary: 'compare two reports', load: async () => (await import('./compare.ts')).compareCommand },
  sign: { summary: 'sign a report, or make a signing key (--new-key NAME)', load: async () => (await import('./sign.ts')).signCommand },
  serve: { summary: 'run the bundled reference server', load: async () => ({ name: 'serve', run: (await import('../reference/serve.ts')).serve }) },
};
