import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { HttpRequest, ReplayableStep, ScenarioState } from './http-request.ts';
import { SEND_PATH, type SendPayload } from './send-payload.ts';
import { acceptedMessageIds, isSuccess, type SendAnswer, type SendPort } from './send-port.ts';
import { validSendPayload, type ValidSendPayloadConstraints } from './valid-send-payload.ts';

/**
 * Idempotency of the send route as a model (section 4.6 rule 8; Idempotency-Key draft
 * sections 2.6 and 2.7). The model remembers, per key, the payload first sent and the answer
 * it got; each command sends through a SendPort and checks the target against that memory:
 *
 * - Send: a new key and a valid payload is accepted with new messageIds (SEND-008);
 * - ReplaySame: the same key and payload gets the same status and messageIds, and nothing
 *   new is created (IDEM-001);
 * - ReplayChanged: the same key with a changed payload is not a success and creates nothing
 *   (IDEM-002); the key keeps its first payload and answer;
 * - ConcurrentBurst: n identical requests with one new key at once; every success carries
 *   the same messageIds, one operation is created (IDEM-003), and every other answer is 409
 *   (IDEM-104).
 */

/** What the model remembers about one key. */
interface KeyRecord {
  payload: SendPayload;
  /** Statuses a replay may answer with: the first answer's, or the successes' of a burst. */
  statuses: number[];
  messageIds: string[];
}

export interface IdempotencyModel {
  /** Keys in the order they were minted; a key's label is its index. */
  keys: KeyRecord[];
  /** Messages the target must have created so far. */
  created: number;
  /** Every messageId handed out so far. */
  seen: Set<string>;
}

/** The system under test: a port, keys minted fresh per run, and the creation count at the start. */
export interface IdempotencyReal {
  port: SendPort;
  key(label: number): string;
  createdAtStart: number;
}

export type IdempotencyCommand = fc.AsyncCommand<IdempotencyModel, IdempotencyReal> & ReplayableStep;

/** A generated scenario: commands as fast-check hands them over (wrapped, to know which ran). */
export type IdempotencyScenario = Iterable<fc.AsyncCommand<IdempotencyModel, IdempotencyReal, boolean>>;

/** Ways to change a stored payload into a different valid one. */
export type PayloadChange = 'externalReference' | 'text' | 'recipient';

export const PAYLOAD_CHANGES: readonly PayloadChange[] = ['externalReference', 'text', 'recipient'];

/** The commands a scenario is made of, named as they print. */
export type IdempotencyCommandKind = 'Send' | 'ReplaySame' | 'ReplayChanged' | 'ConcurrentBurst';

export const IDEMPOTENCY_COMMAND_KINDS: readonly IdempotencyCommandKind[] = ['Send', 'ReplaySame', 'ReplayChanged', 'ConcurrentBurst'];

export interface IdempotencyCommandsConstraints extends ValidSendPayloadConstraints {
  /**
   * Commands to draw. Leave out ConcurrentBurst to stay at the document's level: its "any
   * other answer is 409" comes from the Idempotency-Key draft (IDEM-104 is a standard
   * requirement). Send or ConcurrentBurst must be in, or no key is ever minted.
   * @defaultValue IDEMPOTENCY_COMMAND_KINDS, all four
   */
  kinds?: readonly IdempotencyCommandKind[];
  /**
   * Most commands per run.
   * @defaultValue 8
   */
  maxCommands?: number;
  /**
   * Largest concurrent burst.
   * @defaultValue 5
   */
  maxBurst?: number;
  /**
   * Statuses accepted for an unsafe retry. The document only says it is rejected; the
   * Idempotency-Key draft (2.7) suggests 422 and the reference profile answers 409.
   * @defaultValue undefined: any status that is not 2xx
   */
  unsafeRetryStatuses?: readonly number[];
  /**
   * fast-check's replay hint for commands, printed as `replayPath` with a failure. Pass it
   * back with the seed and path to replay a shrunk scenario exactly.
   * @defaultValue undefined
   */
  replayPath?: string;
}

// ---- rendering and failure text ----------------------------------------------------------

const keyName = (label: number) => `<key k${label}>`;

function request(label: number, body: unknown, times?: number): HttpRequest {
  return { method: 'POST', path: SEND_PATH, headers: { 'Idempotency-Key': keyName(label) }, body, ...(times === undefined ? {} : { times }) };
}

function show(answer: SendAnswer): string {
  const body = JSON.stringify(answer.body) ?? 'undefined';
  return `${answer.status} ${body.length > 400 ? `${body.slice(0, 400)}…` : body}`;
}

function fail(requirementId: string, what: string, label: number, answers: readonly SendAnswer[]): never {
  const shown = answers.map((answer) => `\n  answered: ${show(answer)}`).join('');
  throw new Error(`${requirementId}: ${what} (key k${label})${shown}`);
}

async function expectCreated(m: IdempotencyModel, r: IdempotencyReal, requirementId: string, label: number): Promise<void> {
  if (r.port.createdMessages === undefined) return;
  const created = (await r.port.createdMessages()) - r.createdAtStart;
  if (created !== m.created) {
    fail(requirementId, `the target has created ${created} message(s) where its answers account for ${m.created}`, label, []);
  }
}

const sameIds = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * A different payload that is still valid: only the chosen field moves, and stays within its
 * limits. A recipient change takes `alternative` (drawn from the recipients the run may send to,
 * so it stays inside the target's recipients.allowPattern) when it is not already a recipient.
 */
export function changePayload(payload: SendPayload, change: PayloadChange, alternative?: string): SendPayload {
  switch (change) {
    case 'externalReference':
      return { ...payload, externalReference: `${payload.externalReference.slice(0, 120)}~2` };
    case 'text': {
      if (payload.text === undefined || payload.text.length === 0) return { ...payload, text: 'changed' };
      // Swap the last code point for another GSM-7 letter: same alphabet, never longer.
      const chars = [...payload.text];
      chars[chars.length - 1] = chars[chars.length - 1] === 'x' ? 'y' : 'x';
      return { ...payload, text: chars.join('') };
    }
    case 'recipient': {
      const to = [...payload.to];
      if (alternative !== undefined) {
        if (to.includes(alternative)) return { ...payload, externalReference: `${payload.externalReference.slice(0, 120)}~2` };
        to[to.length - 1] = alternative;
        return { ...payload, to };
      }
      // Without one, move the last digit of the last recipient: the number stays valid, in the
      // same outcome range of the test numbers (the tens digit is kept), and distinct.
      const last = to[to.length - 1] as string;
      for (let step = 1; step < 10; step++) {
        const digit = (Number(last.slice(-1)) + step) % 10;
        const moved = last.slice(0, -1) + String(digit);
        if (!to.includes(moved)) {
          to[to.length - 1] = moved;
          return { ...payload, to };
        }
      }
      return { ...payload, externalReference: `${payload.externalReference.slice(0, 120)}~2` };
    }
  }
}

// ---- commands ------------------------------------------------------------------------------

class SendCommand implements IdempotencyCommand {
  constructor(readonly payload: SendPayload) {}
  check = () => true;
  async run(m: IdempotencyModel, r: IdempotencyReal): Promise<void> {
    const label = m.keys.length;
    const answer = await r.port.send(r.key(label), this.payload);
    const ids = acceptedMessageIds(answer.body);
    if (!isSuccess(answer.status) || ids.length === 0) {
      fail('SEND-008', 'a valid payload under a new key was not accepted with messageIds', label, [answer]);
    }
    const reused = ids.filter((id) => m.seen.has(id));
    if (reused.length > 0) fail('SEND-008', `a new key was answered with messageIds of earlier sends: ${reused.join(', ')}`, label, [answer]);
    m.keys.push({ payload: this.payload, statuses: [answer.status], messageIds: ids });
    for (const id of ids) m.seen.add(id);
    m.created += ids.length;
    await expectCreated(m, r, 'SEND-008', label);
  }
  httpRequests(state: ScenarioState): HttpRequest[] {
    state.payloads.push(this.payload);
    return [request(state.payloads.length - 1, this.payload)];
  }
  toString = () => `Send(${JSON.stringify(this.payload)})`;
}

class ReplaySameCommand implements IdempotencyCommand {
  constructor(readonly pick: number) {}
  check = (m: Readonly<IdempotencyModel>) => this.pick < m.keys.length;
  async run(m: IdempotencyModel, r: IdempotencyReal): Promise<void> {
    const record = m.keys[this.pick] as KeyRecord;
    const answer = await r.port.send(r.key(this.pick), record.payload);
    // The document asks for the same outcome: accepted again, with the same messages. The exact
    // status it leaves open (the send's success status is not shown); the same status is the
    // Idempotency-Key draft's, checked at standard level (IDEM-101).
    if (!isSuccess(answer.status)) {
      fail('IDEM-001', `a safe retry was answered ${answer.status}, the first answer was ${record.statuses.join(' or ')}: it was accepted then`, this.pick, [answer]);
    }
    const ids = acceptedMessageIds(answer.body);
    if (!sameIds(ids, record.messageIds)) {
      fail('IDEM-001', `a safe retry carries messageIds [${ids.join(', ')}], the first answer [${record.messageIds.join(', ')}]`, this.pick, [answer]);
    }
    await expectCreated(m, r, 'IDEM-001', this.pick);
  }
  httpRequests(state: ScenarioState): HttpRequest[] {
    return [request(this.pick, state.payloads[this.pick])];
  }
  toString = () => `ReplaySame(k${this.pick})`;
}

class ReplayChangedCommand implements IdempotencyCommand {
  constructor(
    readonly pick: number,
    readonly change: PayloadChange,
    readonly allowedStatuses: readonly number[] | undefined,
    readonly alternative?: string,
  ) {}
  check = (m: Readonly<IdempotencyModel>) => this.pick < m.keys.length;
  async run(m: IdempotencyModel, r: IdempotencyReal): Promise<void> {
    const record = m.keys[this.pick] as KeyRecord;
    const answer = await r.port.send(r.key(this.pick), changePayload(record.payload, this.change, this.alternative));
    if (isSuccess(answer.status)) fail('IDEM-002', `an unsafe retry (${this.change} changed) was accepted`, this.pick, [answer]);
    if (this.allowedStatuses !== undefined && !this.allowedStatuses.includes(answer.status)) {
      fail('IDEM-002', `an unsafe retry was answered ${answer.status}, expected ${this.allowedStatuses.join(' or ')}`, this.pick, [answer]);
    }
    const ids = acceptedMessageIds(answer.body);
    if (ids.length > 0) fail('IDEM-002', `a rejected unsafe retry carries messageIds [${ids.join(', ')}]`, this.pick, [answer]);
    await expectCreated(m, r, 'IDEM-002', this.pick);
  }
  httpRequests(state: ScenarioState): HttpRequest[] {
    return [request(this.pick, changePayload(state.payloads[this.pick] as SendPayload, this.change, this.alternative))];
  }
  toString = () => `ReplayChanged(k${this.pick}, ${this.change})`;
}

class ConcurrentBurstCommand implements IdempotencyCommand {
  constructor(
    readonly payload: SendPayload,
    readonly times: number,
  ) {}
  check = () => true;
  async run(m: IdempotencyModel, r: IdempotencyReal): Promise<void> {
    const label = m.keys.length;
    const key = r.key(label);
    const answers = await Promise.all(Array.from({ length: this.times }, () => r.port.send(key, this.payload)));
    const successes = answers.filter((answer) => isSuccess(answer.status));
    const others = answers.filter((answer) => !isSuccess(answer.status));
    if (successes.length === 0) fail('SEND-008', `none of ${this.times} concurrent identical requests was accepted; the first to arrive must be`, label, answers);
    if (others.some((answer) => answer.status !== 409)) {
      fail('IDEM-104', `a request of a concurrent burst was answered neither 2xx nor 409`, label, answers);
    }
    const ids = acceptedMessageIds((successes[0] as SendAnswer).body);
    if (ids.length === 0) fail('SEND-008', 'an accepted request of a burst carries no messageIds', label, answers);
    if (!successes.every((answer) => sameIds(acceptedMessageIds(answer.body), ids))) {
      fail('IDEM-003', `the successes of ${this.times} concurrent requests with one key carry different messageIds`, label, successes);
    }
    const reused = ids.filter((id) => m.seen.has(id));
    if (reused.length > 0) fail('SEND-008', `a new key was answered with messageIds of earlier sends: ${reused.join(', ')}`, label, successes);
    m.keys.push({ payload: this.payload, statuses: [...new Set(successes.map((answer) => answer.status))], messageIds: ids });
    for (const id of ids) m.seen.add(id);
    m.created += ids.length;
    await expectCreated(m, r, 'IDEM-003', label);
  }
  httpRequests(state: ScenarioState): HttpRequest[] {
    state.payloads.push(this.payload);
    return [request(state.payloads.length - 1, this.payload, this.times)];
  }
  toString = () => `ConcurrentBurst(${this.times}, ${JSON.stringify(this.payload)})`;
}

// ---- the arbitrary and its runner ----------------------------------------------------------

/**
 * Scenarios of sends, safe retries, unsafe retries and concurrent bursts over a few keys,
 * as fast-check commands for model-based testing (section 4.6 rule 8). Run them with
 * `runIdempotencyModel`.
 */
export function idempotencyCommands(constraints: IdempotencyCommandsConstraints = {}): fc.Arbitrary<IdempotencyScenario> {
  const maxCommands = constraints.maxCommands ?? 8;
  const maxBurst = constraints.maxBurst ?? 5;
  if (!(Number.isInteger(maxCommands) && maxCommands >= 1)) throw new Error(`idempotencyCommands: maxCommands must be a positive integer, got ${maxCommands}`);
  if (!(Number.isInteger(maxBurst) && maxBurst >= 2)) throw new Error(`idempotencyCommands: maxBurst must be an integer of at least 2, got ${maxBurst}`);
  const kinds = [...new Set(constraints.kinds ?? IDEMPOTENCY_COMMAND_KINDS)];
  if (!kinds.includes('Send') && !kinds.includes('ConcurrentBurst')) {
    throw new Error('idempotencyCommands: kinds needs Send or ConcurrentBurst, or no key is ever minted');
  }
  const payload = validSendPayload(constraints);
  // A replay names a key by its label; a label the run has not minted yet is skipped by
  // check(). Replays aim at the first three keys: with labels spread over every possible key
  // most replays would name one that does not exist, and the scenario would say little.
  const pick = fc.nat({ max: Math.min(2, maxCommands - 1) });
  const byKind: Record<IdempotencyCommandKind, () => fc.Arbitrary<IdempotencyCommand>> = {
    Send: () => payload.map((p) => new SendCommand(p)),
    ReplaySame: () => pick.map((k) => new ReplaySameCommand(k)),
    ReplayChanged: () =>
      // The changed recipient is drawn like the payloads' own, so it is one the run may send to.
      fc.tuple(pick, fc.constantFrom(...PAYLOAD_CHANGES), constraints.recipient ?? fc.constant(undefined)).map(([k, change, alternative]) => new ReplayChangedCommand(k, change, constraints.unsafeRetryStatuses, alternative)),
    ConcurrentBurst: () => fc.tuple(payload, fc.integer({ min: 2, max: maxBurst })).map(([p, times]) => new ConcurrentBurstCommand(p, times)),
  };
  const commands = kinds.map((kind) => byKind[kind]());
  return fc.commands(commands, { maxCommands, ...(constraints.replayPath === undefined ? {} : { replayPath: constraints.replayPath }) });
}

/**
 * Run one scenario against `port`. Keys are fresh UUIDs minted for this run, never drawn
 * from the seed: a replay or a shrink must not meet keys an earlier run stored.
 */
export async function runIdempotencyModel(port: SendPort, commands: IdempotencyScenario): Promise<void> {
  const setup = async () => {
    const keys = new Map<number, string>();
    const real: IdempotencyReal = {
      port,
      key(label) {
        let key = keys.get(label);
        if (key === undefined) keys.set(label, (key = randomUUID()));
        return key;
      },
      createdAtStart: port.createdMessages === undefined ? 0 : await port.createdMessages(),
    };
    const model: IdempotencyModel = { keys: [], created: 0, seen: new Set() };
    return { model, real };
  };
  await fc.asyncModelRun(setup, commands);
}
