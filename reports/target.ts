// What target a run certified, as the reporter's options give it ({ label, baseUrl, profile }:
// the run settings' target description).
import { InputError } from './errors.ts';
import type { Target } from './types.ts';

export interface TargetInput {
  label?: unknown;
  baseUrl?: unknown;
  profile?: unknown;
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
