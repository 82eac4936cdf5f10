import type { SendAnswer, SendPort } from '../../generators/send-port.ts';

/**
 * An in-memory send route with idempotency, for the model's own tests. Correct by default;
 * each flaw breaks it in one way a real server has been known to.
 */
export type Flaw =
  /** A safe retry after completion creates new messages and answers with their ids. */
  | 'replay-creates-new'
  /** A changed payload under a used key is sent as a new message. */
  | 'accepts-changed-payload'
  /** The key is looked up and stored with an await in between, so a burst sends many times. */
  | 'racy-burst'
  /** A safe retry after completion is answered from the store, but a duplicate goes out anyway. */
  | 'hidden-duplicate';

export interface FakeOptions {
  flaws?: readonly Flaw[];
  /** A request arriving while the first with its key is in flight: wait for its answer, or 409. */
  inFlight?: 'wait' | 'conflict';
  /** Offer the creation count, as a target with a test hook would. */
  countable?: boolean;
}

interface Entry {
  fingerprint: string;
  answer: Promise<SendAnswer>;
  done: boolean;
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeSendServer implements SendPort {
  private readonly entries = new Map<string, Entry>();
  private created = 0;
  private readonly flaws: ReadonlySet<Flaw>;
  createdMessages?: () => Promise<number>;

  constructor(private readonly options: FakeOptions = {}) {
    this.flaws = new Set(options.flaws ?? []);
    if (options.countable === true) this.createdMessages = async () => this.created;
  }

  async send(key: string, body: unknown): Promise<SendAnswer> {
    await tick();
    if (key === '') return error(400, 'INVALID_REQUEST');
    const fingerprint = JSON.stringify(body);
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.fingerprint !== fingerprint) return this.flaws.has('accepts-changed-payload') ? this.create(body) : error(409, 'CONFLICT');
      if (!entry.done && this.options.inFlight === 'conflict') return error(409, 'CONFLICT');
      // The retry flaws strike a retry after completion, not a request that waited in flight.
      const retry = entry.done;
      const stored = await entry.answer;
      if (retry && this.flaws.has('replay-creates-new')) return this.create(body);
      if (retry && this.flaws.has('hidden-duplicate')) this.created += recipients(body);
      return structuredClone(stored);
    }
    if (this.flaws.has('racy-burst')) {
      await tick();
      const answer = this.create(body);
      this.entries.set(key, { fingerprint, answer: Promise.resolve(answer), done: true });
      return answer;
    }
    // Reserve the key before the first await, so a concurrent request sees it in flight.
    const fresh: Entry = { fingerprint, answer: tick().then(() => this.create(body)), done: false };
    this.entries.set(key, fresh);
    const answer = await fresh.answer;
    fresh.done = true;
    return structuredClone(answer);
  }

  private create(body: unknown): SendAnswer {
    const to = (body as { to: string[] }).to;
    const results = to.map((recipient) => ({ to: recipient, messageId: `msg_${++this.created}`, status: 'QUEUED' }));
    return { status: 202, body: { results, errors: [] }, headers: {} };
  }
}

const recipients = (body: unknown) => (body as { to: string[] }).to.length;

function error(status: number, code: string): SendAnswer {
  return { status, body: { error: { code, message: code, details: {} }, requestId: 'req' }, headers: {} };
}
