import type { ApiClient, ClientRole } from '../../harness/api-client.ts';
import { expect } from '../../harness/fixtures.ts';
import type { NumberRecord } from '../../harness/known-numbers.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';

export { BOOLEAN_FIELDS, NULLABLE_FIELDS, SETTABLE_FIELDS, differentValue, recordOf, scratchNumber, settableOf, type SettableField } from '../support/settings.ts';
import { recordOf, type SettableField } from '../support/settings.ts';
import type { RequirementLabel } from '../../harness/requirement-ids.ts';

/**
 * Remember a number's settings with the settings fixture before a test sends an update that
 * should be refused: a no-op change through the owner makes the fixture restore the field if
 * a server wrongly applies the refused update.
 */
export async function guardFields(
  requirement: RequirementLabel,
  settings: SettingsGuard,
  api: ApiClient,
  numberId: string,
  fields: readonly SettableField[],
  as: ClientRole = 'primary',
): Promise<NumberRecord> {
  const record = await recordOf(api, numberId, as, requirement);
  // Only what the list shows can be set to its current value (and put back).
  const patch = Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]]));
  if (Object.keys(patch).length === 0) return record;
  const res = await settings.change(numberId, patch, as);
  expect(res).toSucceed(`${requirement}: precondition: the ${as} client sets ${fields.join(', ')} of its number ${numberId} to the current value`);
  return record;
}
