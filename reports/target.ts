// What target a run certified. The certify CLI describes it in CONFORMANCE_TARGET_JSON
// ({ baseUrl, profile, label }); reporter options may give it directly instead.
import { InputError } from './errors.ts';
import type { Target } from './types.ts';

export interface TargetInput {
  label?: unknown;
  baseUrl?: unknown;
  profile?: unknown;
  seed?: unknown;
}

export function parseTargetJson(text: string, from = 'CONFORMANCE_TARGET_JSON'): TargetInput {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new InputError(`${from} is not valid JSON`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InputError(`${from} must be a JSON object {baseUrl, profile, label}`);
  return v as TargetInput;
}

const optionalString = (v: unknown, what: string): string | null => {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw new InputError(`target ${what} must be a string`);
  return v;
};

export function targetOf(input: TargetInput | undefined): Target {
  const baseUrl = optionalString(input?.baseUrl, 'baseUrl');
  // `profile: none` in a target config means no profile, as does leaving it out
  const declared = optionalString(input?.profile, 'profile');
  const profile = declared === 'none' ? null : declared;
  const label = optionalString(input?.label, 'label') ?? baseUrl ?? 'unnamed target';
  return { label, baseUrl, profile };
}
