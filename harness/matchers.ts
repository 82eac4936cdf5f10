import { expect as base } from '@playwright/test';
import { asCurl } from './evidence.ts';
import { recordLabel } from './judgement.ts';
import type { ApiResponse } from './api-client.ts';
import type { RequirementLabel } from './requirement-ids.ts';
import { answerClass, isRequestDefectAnswer } from './answer-classes.ts';

/**
 * Matchers over ApiResponse whose failures read like h2spec's: the requirement, what was
 * expected, what came, and the request to replay. A failing matcher records the requirement
 * its label names (harness/judgement.ts), which is what the report counts the failure against.
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

const matchers = base.extend({
  /** A 2xx answer: the document rarely fixes the exact success status. */
  toSucceed(res: ApiResponse, requirement: RequirementLabel) {
    const pass = judged(this.isNot, res.status >= 200 && res.status < 300, requirement);
    return { pass, name: 'toSucceed', message: () => report(requirement, this.isNot ? 'not a 2xx answer' : 'a 2xx answer', res) };
  },
  /** A 4xx answer: how the document's "the request is invalid" is observed. */
  toBeRejected(res: ApiResponse, requirement: RequirementLabel) {
    const pass = judged(this.isNot, res.status >= 400 && res.status < 500, requirement);
    return { pass, name: 'toBeRejected', message: () => report(requirement, 'a 4xx answer (the request is rejected)', res) };
  },
  /**
   * A refusal a client following section 7.3 reads as a request defect (harness/answer-classes.ts):
   * a 4xx that is not 401, 403, 404, 408, 409 or 429, so the client fixes the request instead
   * of refreshing its token, checking its numbers, looking for a key clash or retrying.
   */
  toBeRequestDefect(res: ApiResponse, requirement: RequirementLabel) {
    const pass = judged(this.isNot, isRequestDefectAnswer(res.status), requirement);
    return {
      pass,
      name: 'toBeRequestDefect',
      message: () => report(requirement, 'a request-defect answer (section 7.3: a 4xx other than 401, 403, 404, 408, 409, 429), such as 400 INVALID_REQUEST', res),
    };
  },
  /**
   * A refusal of the unsafe retry (rule 8): a request defect or 409 CONFLICT, both of which tell
   * the client not to send it again under this key; never a 2xx, and never an answer that sends
   * the client to its token (401), its numbers (403, 404) or a later retry (408, 429, 5xx).
   */
  toBeRefusedAsUnsafeRetry(res: ApiResponse, requirement: RequirementLabel) {
    const pass = judged(this.isNot, ['request-defect', 'conflict'].includes(answerClass(res.status)), requirement);
    return { pass, name: 'toBeRefusedAsUnsafeRetry', message: () => report(requirement, 'a request-defect answer or 409 CONFLICT (sections 4.6 rule 8, 7.3)', res) };
  },
  /**
   * An ownership refusal (section 7.3's authorization/ownership class): 403 FORBIDDEN, or
   * 404 NOT_FOUND, which RFC 9110 15.5.4 lets a server use to hide another client's resource;
   * either sends the client to check its context and numbers.
   */
  toBeOwnershipRefusal(res: ApiResponse, requirement: RequirementLabel) {
    const code: unknown = res.body?.error?.code;
    const pass = judged(this.isNot, (res.status === 403 && code === 'FORBIDDEN') || (res.status === 404 && code === 'NOT_FOUND'), requirement);
    return { pass, name: 'toBeOwnershipRefusal', message: () => report(requirement, '403 FORBIDDEN or 404 NOT_FOUND (section 7.3: authorization/ownership)', res) };
  },
  /** The CORE wrapper with exactly this status and error.code. */
  toBeCoreError(res: ApiResponse, status: number, code: string, requirement: RequirementLabel) {
    const body = res.body;
    const pass = judged(this.isNot, res.status === status && body?.error?.code === code, requirement);
    return { pass, name: 'toBeCoreError', message: () => report(requirement, `${status} with error.code ${code}`, res) };
  },
  /** The OAuth-style token error with this error value. */
  toBeOAuthError(res: ApiResponse, error: string, requirement: RequirementLabel) {
    const pass = judged(this.isNot, res.status >= 400 && res.status < 500 && res.body?.error === error, requirement);
    return { pass, name: 'toBeOAuthError', message: () => report(requirement, `a 4xx OAuth error body with error "${error}"`, res) };
  },
  /** The exact status (for standard- and profile-level checks, where it is fixed). */
  toHaveStatus(res: ApiResponse, status: number, requirement: RequirementLabel) {
    const pass = judged(this.isNot, res.status === status, requirement);
    return { pass, name: 'toHaveStatus', message: () => report(requirement, `status ${status}`, res) };
  },
});

/** A matcher's outcome, its label recorded when it fails (with .not, a failure is a pass). */
function judged(isNot: boolean, pass: boolean, requirement: string): boolean {
  if (pass === isNot) recordLabel(requirement);
  return pass;
}

type Expect = typeof matchers;
const labelOf = (messageOrOptions: unknown): string | undefined =>
  typeof messageOrOptions === 'string' ? messageOrOptions : (messageOrOptions as { message?: unknown } | undefined)?.message as string | undefined;
/** `expect(x, 'SEND-008: …')` and `expect.soft(x, 'SEND-008: …')` record their label when made. */
const labelling: ProxyHandler<Expect> = {
  apply(target, thisArg, args: unknown[]) {
    const label = labelOf(args[1]);
    if (label !== undefined) recordLabel(label);
    return Reflect.apply(target, thisArg, args);
  },
};

/**
 * The harness's expect: Playwright's, with the matchers above, whose assertions record the
 * requirement their label names. Signatures and messages are Playwright's.
 */
export const expect: Expect = new Proxy(matchers, {
  ...labelling,
  get(target, prop, receiver) {
    const value = Reflect.get(target, prop, receiver);
    return prop === 'soft' ? new Proxy(value, labelling as ProxyHandler<typeof value>) : value;
  },
});
