// action.yml holds no logic of its own: its shell steps are scripts/action.sh subcommands (which
// scripts/check-action.sh runs in CI), every input it reads is declared, and the example
// workflow passes only inputs the action declares.
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../harness/settings.ts';

interface Step { uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, string> }
const actionText = readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8');
const action = parse(actionText) as { inputs: Record<string, { required?: boolean }>; outputs: Record<string, { value: string }>; runs: { using: string; steps: Step[] } };
const script = readFileSync(join(REPO_ROOT, 'scripts', 'action.sh'), 'utf8');
const subcommands = /^ {2}([a-z|\s]+)\) "\$1" ;;$/m.exec(script)?.[1]?.split('|').map((s) => s.trim()) ?? [];

test('action.yml is a composite action whose shell steps are scripts/action.sh subcommands', () => {
  expect(action.runs.using).toBe('composite');
  expect(subcommands).toEqual(['install', 'certify', 'gate']);
  const runs = action.runs.steps.filter((s) => s.run !== undefined).map((s) => s.run!.trim());
  expect(runs).toEqual(subcommands.map((sub) => `bash "\${{ github.action_path }}/scripts/action.sh" ${sub}`));
});

test('every input action.yml reads is declared, and every variable action.sh reads is passed by its step', () => {
  const used = [...actionText.matchAll(/\$\{\{ inputs\.([\w-]+) \}\}/g)].map((m) => m[1]!);
  expect(used.filter((name) => !(name in action.inputs))).toEqual([]);
  expect(Object.keys(action.inputs).filter((name) => !used.includes(name))).toEqual([]);
  const passed = new Set(action.runs.steps.flatMap((s) => Object.keys(s.env ?? {})));
  const read = [...new Set([...script.matchAll(/\$\{?((?:INPUT_|CERTIFY_)[A-Z_]+|BIN)\b/g)].map((m) => m[1]!))];
  expect(read.filter((name) => !passed.has(name))).toEqual([]);
  for (const [name, out] of Object.entries(action.outputs)) {
    expect(out.value, name).toBe(`\${{ steps.certify.outputs.${name} }}`);
    expect(script, `action.sh writes the output ${name}`).toContain(`output ${name} `);
  }
});

test('the example workflow passes only inputs the action declares, and every required one', () => {
  const workflow = parse(readFileSync(join(REPO_ROOT, '.github', 'workflows', 'certify-example.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> };
  const uses = Object.values(workflow.jobs).flatMap((j) => j.steps).filter((s) => s.uses?.includes('messaging-conformance'));
  expect(uses).toHaveLength(1);
  const given = Object.keys(uses[0]!.with ?? {});
  expect(given.filter((name) => !(name in action.inputs))).toEqual([]);
  expect(Object.entries(action.inputs).filter(([name, i]) => i.required && !given.includes(name)).map(([name]) => name)).toEqual([]);
});
