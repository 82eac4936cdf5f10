import type { FinalStatus } from '../store/messages.ts';

// Profile message.testOutcomes (WH-202): a recipient +1 NPA 555 0150..0199 (NANP fictional range) ends
// FAILED with UNDELIVERABLE; every other recipient ends DELIVERED. Each message's outcome is its
// own recipient's, whatever else its send held (WH-008).
const FAILING_RECIPIENT = /^\+1\d{3}55501[5-9]\d$/;

export interface Outcome {
  status: FinalStatus;
  errorCode: string | null;
}

export function outcomeFor(recipient: string): Outcome {
  return FAILING_RECIPIENT.test(recipient)
    ? { status: 'FAILED', errorCode: 'UNDELIVERABLE' }
    : { status: 'DELIVERED', errorCode: null };
}
