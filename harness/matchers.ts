import { expect as base } from '@playwright/test';
import { asCurl } from './evidence.ts';
import type { ApiResponse } from './api-client.ts';

/**
 * Matchers over ApiResponse whose failures read like h2spec's: the requirement, what was
 * expected, what came, and the request to replay.
 */
function report(requirement: string, expected: string, res: ApiResponse): string {
  return [
    `${requirement}`,
    `  expected: ${expected}`,
    `  actual:   ${res.status} ${res.text.slice(0, 400)}`,
    `  request:  ${res.describe()}`,
    `  replay:\n${asCurl(res.request)}`,
  ].join('\n');
}

export const expect = base.extend({
  /** A 2xx answer: the document rarely fixes the exact success status. */
  toSucceed(res: ApiResponse, requirement: string) {
    const pass = res.status >= 200 && res.status < 300;
    return { pass, name: 'toSucceed', message: () => report(requirement, this.isNot ? 'not a 2xx answer' : 'a 2xx answer', res) };
  },
  /** A 4xx answer: how the document's "the request is invalid" is observed. */
  toBeRejected(res: ApiResponse, requirement: string) {
    const pass = res.status >= 400 && res.status < 500;
    return { pass, name: 'toBeRejected', message: () => report(requirement, 'a 4xx answer (the request is rejected)', res) };
  },
  /** The CORE wrapper with exactly this status and error.code. */
  toBeCoreError(res: ApiResponse, status: number, code: string, requirement: string) {
    const body = res.body;
    const pass = res.status === status && body?.error?.code === code;
    return { pass, name: 'toBeCoreError', message: () => report(requirement, `${status} with error.code ${code}`, res) };
  },
  /** The OAuth-style token error with this error value. */
  toBeOAuthError(res: ApiResponse, error: string, requirement: string) {
    const pass = res.status >= 400 && res.status < 500 && res.body?.error === error;
    return { pass, name: 'toBeOAuthError', message: () => report(requirement, `a 4xx OAuth error body with error "${error}"`, res) };
  },
  /** The exact status (for standard- and profile-level checks, where it is fixed). */
  toHaveStatus(res: ApiResponse, status: number, requirement: string) {
    const pass = res.status === status;
    return { pass, name: 'toHaveStatus', message: () => report(requirement, `status ${status}`, res) };
  },
});
