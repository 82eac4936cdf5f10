import { answerOf, type ApiClient } from '../../harness/api-client.ts';
import type { SettingsGuard } from '../../harness/settings-guard.ts';
import { HOLDS_EVERY_NUMBER, expect, notTestable, test } from '../../harness/fixtures.ts';
import { readNumbers, type NumberRecord } from '../../harness/known-numbers.ts';
import { answerClass, isRequestDefectAnswer } from '../../harness/answer-classes.ts';
import { unknownNumberIdLike } from '../support/core-routes.ts';
import { NON_OBJECT_BODIES } from '../support/malformed-json.ts';
import { tokensEveryWay } from '../support/tokens.ts';
import { BOOLEAN_FIELDS, NULLABLE_FIELDS, SETTABLE_FIELDS, differentValue, guardFields, recordOf, scratchNumber, settableOf, type SettableField } from './update-support.ts';

// Section 4.5: updating number settings. The method, path prefix, success status and response
// body are not shown: success is any 2xx, and what changed is read back from the numbers list
// (section 4.3). Every change goes through the settings fixture, which puts it back.

type Patch = Parameters<SettingsGuard['change']>[1];

function patchOf(field: SettableField, value: unknown): Patch {
  return { [field]: value } as Patch;
}

/**
 * Sets campaignregId of `numberId` to each value in turn: one accepted is read back from the numbers
 * list exactly as given (UPD-001), one refused is a request defect (section 7.3). How many were accepted.
 */
async function campaignsReadBack(api: ApiClient, settings: SettingsGuard, numberId: string, values: readonly string[]): Promise<number> {
  let accepted = 0;
  for (const value of values) {
    const res = await settings.change(numberId, { campaignregId: value });
    if (res.status < 200 || res.status >= 300) {
      expect.soft(isRequestDefectAnswer(res.status), `UPD-001: an update of campaignregId to ${JSON.stringify(value)} is accepted or refused as a request defect (section 7.3); answered ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
      continue;
    }
    accepted++;
    const after = await recordOf(api, numberId, 'primary', 'UPD-001');
    expect.soft(after.campaignregId, `UPD-001: the update of campaignregId to the string ${JSON.stringify(value)} was accepted (${res.status}), and the numbers list reads back ${JSON.stringify(after.campaignregId)}`).toBe(value);
  }
  return accepted;
}

test.describe('4.5 Update number settings', () => {
  for (const field of SETTABLE_FIELDS) {
    // NUM-005 too for campaignregId: the write side uses this spelling and the list reads it back.
    const tag = field === 'campaignregId' ? ['@UPD-001', '@NUM-005'] : ['@UPD-001'];
    test(`an update of ${field} is accepted and the new value is visible in the numbers list`, { tag }, async ({ api, knownNumbers, settings, webhooks }) => {
      const numberId = scratchNumber(knownNumbers);
      const before = await recordOf(api, numberId, 'primary', 'UPD-001');
      const value = differentValue(field, before[field], knownNumbers, () => webhooks.channel(`upd-${field}`).url);
      const res = await settings.change(numberId, patchOf(field, value));
      expect(res).toSucceed(`UPD-001: the update of ${field} to ${JSON.stringify(value)} is accepted (2xx)`);
      const after = await recordOf(api, numberId, 'primary', 'UPD-001');
      expect(after[field], `UPD-001: the numbers list shows ${field} = ${JSON.stringify(value)} after the update`).toEqual(value);
    });
  }

  // Another spelling of the same kind of value: characters beyond ASCII. JSON text is UTF-8
  // (RFC 8259 8.1), so a value the update accepts is read back as written; a server that stores
  // or answers in another encoding is right while every value is ASCII. A target that takes only
  // registrations it knows refuses such a campaignregId, and has nothing to read back.
  test('a campaignregId with characters beyond ASCII, once accepted, is read back exactly as written', { tag: ['@UPD-001'] }, async ({ api, knownNumbers, settings }) => {
    const numberId = scratchNumber(knownNumbers);
    const value = 'CR-é中\u{1F600}';
    const res = await settings.change(numberId, { campaignregId: value });
    if (res.status < 200 || res.status >= 300) notTestable(`the target refused campaignregId ${JSON.stringify(value)} (${res.status}): nothing to read back`);
    const after = await recordOf(api, numberId, 'primary', 'UPD-001');
    expect(after.campaignregId, `UPD-001: the numbers list shows campaignregId ${JSON.stringify(value)} as written (UTF-8, RFC 8259 8.1)`).toBe(value);
  });

  // A string of digits is a string: a campaignregId "123456" (or one with a leading zero, or in
  // exponent form) is read back as that string, never as a JSON number, which section 2's type
  // (string or null) does not allow. A server that stores what looks like a number as one is right
  // on every registration with a letter in it. NUM-005 too: the list's type for it is string or
  // null, which the validating client checks on every list it reads.
  test('a campaignregId of digits only, once accepted, is read back as the same string', { tag: ['@UPD-001', '@NUM-005'] }, async ({ api, knownNumbers, settings }) => {
    const accepted = await campaignsReadBack(api, settings, scratchNumber(knownNumbers), ['123456', '0042', '1e5']);
    if (accepted === 0) notTestable('the target refused every campaignregId of digits only: nothing to read back');
  });

  // Whitespace is part of a string value: a campaignregId with spaces around it, two spaces or a
  // tab inside, or a line feed at its end is the value set. A server that trims or collapses
  // what it stores is right on every value without them. It may refuse such a value as a request
  // defect (it takes only registrations it knows); what it accepts it reads back as written.
  test('a campaignregId with spaces around or inside it, once accepted, is read back exactly as written; a refused one is a request defect', { tag: ['@UPD-001'] }, async ({ api, knownNumbers, settings }) => {
    const accepted = await campaignsReadBack(api, settings, scratchNumber(knownNumbers), [' CMP 7 ', 'CMP  7', 'CMP\t7', 'CMP 7\n']);
    if (accepted === 0) notTestable('the target refused every campaignregId with whitespace in it: nothing to read back');
  });

  // Another length of the same kind of value. Section 8 leaves limits open: a server may refuse
  // a value it finds too long, as a request defect (section 7.3). What it accepts it stores: the
  // update sets the value given, so the list reads back every character of it. A server that
  // keeps a fixed-width column cuts what does not fit and answers 2xx, right on every short value.
  // The lengths sit one past the widths columns are usually given (32, 50, 64, 100, 128, 255 for
  // a registration; 255, 500, 1024, 2048 for a URL), each a value of its own.
  test('a campaignregId or webhook override of any length, once accepted, is read back whole; a refused one is a request defect', { tag: ['@UPD-001'] }, async ({ api, knownNumbers, settings, webhooks }) => {
    const numberId = scratchNumber(knownNumbers);
    const shown = await recordOf(api, numberId, 'primary', 'UPD-001');
    const fields = NULLABLE_FIELDS.filter((f) => f in shown);
    if (fields.length === 0) notTestable(`the numbers list shows no campaignregId or webhook override of number ${numberId}, so nothing can be read back`);
    const url = webhooks.channel('upd-long').url;
    const ofLength = (field: SettableField, length: number): string => {
      if (field === 'campaignregId') return `C${length}-${'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'.repeat(Math.ceil(length / 32))}`.slice(0, length);
      const base = `${url}?length=${length}&pad=`;
      return base + 'p'.repeat(Math.max(0, length - base.length));
    };
    let accepted = 0;
    for (const field of fields) {
      for (const length of field === 'campaignregId' ? [33, 51, 65, 101, 129, 256] : [256, 501, 1025, 2049]) {
        const value = ofLength(field, length);
        const res = await settings.change(numberId, { [field]: value } as Patch);
        if (res.status < 200 || res.status >= 300) {
          expect(isRequestDefectAnswer(res.status), `UPD-001: an update of ${field} to a value of ${value.length} characters is accepted or refused as a request defect (section 7.3); answered ${res.status} ${res.text.slice(0, 200)}`).toBe(true);
          continue;
        }
        accepted++;
        const after = await recordOf(api, numberId, 'primary', 'UPD-001');
        const read = after[field];
        expect(read, `UPD-001: the update of ${field} to a value of ${value.length} characters was accepted (${res.status}), and the numbers list reads back ${typeof read === 'string' ? `${read.length} characters${value.startsWith(read) ? ', the value cut short' : ''}` : JSON.stringify(read)}, not the value set`).toBe(value);
      }
    }
    if (accepted === 0) notTestable(`the target refused every value longer than 32 characters for ${fields.join(', ')}: nothing to read back`);
  });

  // Either client, the other's number: a server that checks ownership for one identity only is
  // right on the first direction and wrong on the second.
  for (const [actor, owner] of [['primary', 'secondary'], ['secondary', 'primary']] as const) {
    test(`an update by the ${actor} client of the ${owner} client's number is refused and the number stays unchanged`, { tag: ['@UPD-002'] }, async ({ api, target, knownNumbers, settings, webhooks, secondClient }) => {
      const numberId = owner === 'secondary' ? knownNumbers.foreign : knownNumbers.primary[0]?.numberId;
      if (!numberId) notTestable(`the ${owner} client (${owner === 'secondary' ? secondClient.clientId : 'primary'}) has no numbers to try`);
      // Registered with the fixture first, so a server that wrongly applies the change is put right.
      const before = await guardFields('UPD-002', settings, api, numberId!, ['webhookInboundOverride', 'smsEnabled'], owner);
      const patch = { webhookInboundOverride: webhooks.channel(`upd-foreign-${actor}`).url, smsEnabled: before.smsEnabled !== true };
      const res = await api.call('update', { params: { numberId: numberId! }, json: patch, as: actor });
      expect(res).toBeOwnershipRefusal(`UPD-002: the ${actor} client updating the ${owner} client's number ${numberId} is refused 403 FORBIDDEN or 404 NOT_FOUND`);
      expect(settableOf(await recordOf(api, numberId!, owner, 'UPD-002')), `UPD-002: the ${owner} client's number is unchanged`).toEqual(settableOf(before));
      // The same path written another way: a percent-encoded unreserved character is the same
      // character (RFC 3986 2.3, 6.2.2.2), so the same number, still not the caller's. A server
      // that checks ownership on the path as written, and looks the number up decoded, lets it through.
      const spelt = percentEncodedFirstCharacter(numberId!);
      const respelt = await api.call('update', { rawParams: { numberId: spelt }, json: patch, as: actor });
      expect(respelt.status >= 200 && respelt.status < 300, `UPD-002: the ${actor} client updating the ${owner} client's number as ${spelt} (the same path, percent-encoded) is refused; answered ${respelt.status} ${respelt.text.slice(0, 200)}`).toBe(false);
      expect(settableOf(await recordOf(api, numberId!, owner, 'UPD-002')), `UPD-002: the ${owner} client's number is unchanged after the update written as ${spelt}`).toEqual(settableOf(before));
      // The numberId in other letter case: another string, which names no number of the caller's
      // whatever the server makes of the case. A server that looks numbers up without regard to
      // case, and checks ownership on the string as given, updates the other client's number.
      const swapped = swapCase(numberId!);
      if (swapped !== numberId) {
        const recased = await api.call('update', { params: { numberId: swapped }, json: patch, as: actor });
        expect(recased.status >= 200 && recased.status < 300, `UPD-002: the ${actor} client updating the ${owner} client's number as ${swapped} (its numberId in other letter case) is refused; answered ${recased.status} ${recased.text.slice(0, 200)}`).toBe(false);
        expect(settableOf(await recordOf(api, numberId!, owner, 'UPD-002')), `UPD-002: the ${owner} client's number is unchanged after the update written as ${swapped}`).toEqual(settableOf(before));
      }
      // The path with a slash after the numberId: whatever serves it (a leftover route, a router
      // that ignores the slash), it must not change another client's number.
      const slashed = `${encodeURIComponent(numberId!)}/`;
      await api.call('update', { rawParams: { numberId: slashed }, json: patch, as: actor });
      expect(settableOf(await recordOf(api, numberId!, owner, 'UPD-002')), `UPD-002: the ${owner} client's number is unchanged after the update written with a slash after its numberId`).toEqual(settableOf(before));
      // The same update under a token of the actor obtained each other way (JSON body, form body,
      // HTTP Basic: section 5 rule 1): ownership is the client's, whichever of its tokens asks.
      for (const { how, authorization } of await tokensEveryWay(api, actor === 'primary' ? target.clients.primary : secondClient)) {
        const other = await api.call('update', { params: { numberId: numberId! }, json: patch, as: 'none', headers: { authorization } });
        expect(other.status >= 200 && other.status < 300, `UPD-002: the ${actor} client updating the ${owner} client's number ${numberId} under a token it obtained by ${how} is refused; answered ${other.status} ${other.text.slice(0, 200)}`).toBe(false);
        expect(settableOf(await recordOf(api, numberId!, owner, 'UPD-002')), `UPD-002: the ${owner} client's number is unchanged after the update under the ${actor} client's token obtained by ${how}`).toEqual(settableOf(before));
      }
      // The number named by its phone number instead (a numberId is never one, section 1): a
      // server that also looks numbers up by phone number must not skip the ownership check there.
      const phone = (before as { phoneNumber?: unknown }).phoneNumber;
      if (typeof phone === 'string') {
        const byPhone = await api.call('update', { params: { numberId: phone }, json: patch, as: actor });
        expect(byPhone.status >= 200 && byPhone.status < 300, `UPD-002: the ${actor} client updating the ${owner} client's number by its phone number ${phone} is refused; answered ${byPhone.status} ${byPhone.text.slice(0, 200)}`).toBe(false);
        expect(settableOf(await recordOf(api, numberId!, owner, 'UPD-002')), `UPD-002: the ${owner} client's number is unchanged after the update by its phone number`).toEqual(settableOf(before));
      }
    });
  }

  // The path names the number (section 4.5); the body carries settable attributes only (section
  // 2). A body that also names another number, or an owner, is another spelling of the same
  // update at most: a server may refuse the member or pass over it, but a server that lets the
  // body pick the number (the path's numberId read first, the body's after it) or writes every
  // member it is given (a numberId, an owner) changes a neighbour, renames a number or hands it
  // to another client. Each case flips one boolean the list shows, so an accepted update is seen
  // to land on the path's number and nowhere else.
  test('an update whose body also names another numberId or an owner changes at most the number its path names, which keeps its numberId and its owner', { tag: ['@UPD-007'] }, async ({ api, target, knownNumbers, settings }) => {
    const numberId = scratchNumber(knownNumbers);
    const sibling = knownNumbers.primary.find((n) => n.numberId !== numberId)?.numberId;
    // The secondary client, where the config names one, as the owner named and the list compared.
    const secondClient = target.clients.secondary;
    const foreign = secondClient ? knownNumbers.foreign : undefined;
    const secondaryId = secondClient ? (await api.call('whoami', { as: 'secondary' })).body?.apiClientId : undefined;
    const guarded = [numberId, ...(sibling ? [sibling] : [])];
    for (const id of guarded) await guardFields('UPD-007', settings, api, id, SETTABLE_FIELDS);
    if (foreign) await guardFields('UPD-007', settings, api, foreign, SETTABLE_FIELDS, 'secondary');
    const flag = BOOLEAN_FIELDS.find((f) => f in (knownNumbers.primary.find((n) => n.numberId === numberId) ?? {}));
    if (!flag) notTestable(`the numbers list shows neither smsEnabled nor mmsEnabled of number ${numberId}, so an update cannot be seen to land on it`);
    const extras: Array<[string, Record<string, unknown>]> = [
      ...(sibling ? [[`the client's other number ${sibling} as numberId`, { numberId: sibling }] as [string, Record<string, unknown>]] : []),
      ...(foreign ? [[`the secondary client's number ${foreign} as numberId`, { numberId: foreign }] as [string, Record<string, unknown>]] : []),
      [`a numberId never issued`, { numberId: unknownNumberIdLike(numberId) }],
      ...(typeof secondaryId === 'string' ? [[`the secondary client as apiClientId`, { apiClientId: secondaryId }] as [string, Record<string, unknown>]] : []),
      ...(secondClient ? [[`the secondary client's clientId as clientId`, { clientId: secondClient.clientId }] as [string, Record<string, unknown>]] : []),
    ];
    const snapshot = async () => {
      const [primary, secondary] = await Promise.all([readNumbers(api, 'primary'), secondClient ? readNumbers(api, 'secondary') : Promise.resolve([])]);
      return { primary, secondary };
    };
    const ids = (records: readonly NumberRecord[]) => records.map((n) => n.numberId).sort();
    for (const [what, extra] of extras) {
      const before = await snapshot();
      const record = before.primary.find((n) => n.numberId === numberId)!;
      const body = { [flag!]: record[flag!] !== true, ...extra };
      const res = await api.call('update', { params: { numberId }, json: body });
      expect(res.status < 500, `UPD-007: the update of ${numberId} whose body also gives ${what} (${JSON.stringify(body)}) is accepted or refused, not failed: ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
      const after = await snapshot();
      expect(ids(after.primary), `UPD-007: after the update of ${numberId} whose body also gives ${what}, the primary client's numbers are the same numberIds`).toEqual(ids(before.primary));
      expect(ids(after.secondary), `UPD-007: after the update of ${numberId} whose body also gives ${what}, the secondary client's numbers are the same numberIds`).toEqual(ids(before.secondary));
      for (const [role, records] of Object.entries(after) as Array<['primary' | 'secondary', NumberRecord[]]>) {
        for (const now of records) {
          const was = before[role].find((n) => n.numberId === now.numberId);
          if (role === 'primary' && now.numberId === numberId) {
            const expected = settableOf(res.status < 300 ? { ...was!, [flag!]: body[flag!] } : was!);
            expect(settableOf(now), `UPD-007: the update of ${numberId} whose body also gives ${what}, answered ${res.status}, leaves its record ${res.status < 300 ? `as before but ${flag} = ${body[flag!]}` : 'as it was'}`).toEqual(expected);
          } else if (guarded.includes(now.numberId) || now.numberId === foreign) {
            expect(settableOf(now), `UPD-007: the update of ${numberId} whose body also gives ${what} leaves the ${role} client's number ${now.numberId} as it was`).toEqual(settableOf(was!));
          }
        }
      }
    }
  });

  test('an update of a numberId that was never issued is refused and creates no number', { tag: ['@UPD-006'] }, async ({ api, knownNumbers, webhooks }) => {
    // Section 4.5: the update applies only to a number the client owns; a numberId nobody was
    // given is not one. An ownership refusal (403, 404) or a request defect (400) both stop the
    // client from believing the setting took; a 2xx makes it believe so.
    const numberId = unknownNumberIdLike(scratchNumber(knownNumbers));
    const listed = (await readNumbers(api)).map((n) => n.numberId).sort();
    const res = await api.call('update', { params: { numberId }, json: { webhookInboundOverride: webhooks.channel('upd-unknown').url } });
    expect(['ownership', 'request-defect'], `UPD-006: the update of never-issued ${numberId} is refused as not owned (403, 404) or as a request defect, got ${res.describe()} ${res.text.slice(0, 200)}`).toContain(answerClass(res.status));
    const after = (await readNumbers(api)).map((n) => n.numberId).sort();
    expect(after, `UPD-006: the numbers list is as it was: the update created no number ${numberId}`).toEqual(listed);
  });

  for (const field of SETTABLE_FIELDS) {
    test(`an update naming only ${field} leaves every other field unchanged`, { tag: ['@UPD-003'] }, async ({ api, knownNumbers, settings, webhooks }) => {
      const numberId = scratchNumber(knownNumbers);
      const before = await recordOf(api, numberId, 'primary', 'UPD-003');
      // Without another settable field in the list, "the others are unchanged" would hold of nothing.
      if (!SETTABLE_FIELDS.some((other) => other !== field && other in before)) notTestable(`the numbers list shows no settable field of number ${numberId} besides ${field}, so none can be seen to stay unchanged`);
      const value = differentValue(field, before[field], knownNumbers, () => webhooks.channel(`upd3-${field}`).url);
      const res = await settings.change(numberId, patchOf(field, value));
      expect(res).toSucceed(`UPD-003: the update of ${field} alone is accepted (2xx)`);
      const after = await recordOf(api, numberId, 'primary', 'UPD-003');
      const { [field]: _was, ...othersBefore } = settableOf(before);
      const { [field]: _now, ...othersAfter } = settableOf(after);
      expect(othersAfter, `UPD-003: an update naming only ${field} leaves the other settable fields as they were`).toEqual(othersBefore);
    });
  }

  for (const field of NULLABLE_FIELDS) {
    test(`an update setting only ${field} to null leaves every other field unchanged`, { tag: ['@UPD-003'] }, async ({ api, knownNumbers, settings, webhooks }) => {
      // Null is a value like any other here: clearing one override or the registration does not
      // clear the others. Every nullable field the list shows is given a value first, so a null
      // that spilled over onto another would show.
      const numberId = scratchNumber(knownNumbers);
      const shown = await recordOf(api, numberId, 'primary', 'UPD-003');
      if (!(field in shown)) notTestable(`the numbers list does not show ${field} of number ${numberId}, so it cannot be set to null and put back`);
      if (!SETTABLE_FIELDS.some((other) => other !== field && other in shown)) notTestable(`the numbers list shows no settable field of number ${numberId} besides ${field}, so none can be seen to stay unchanged`);
      for (const other of NULLABLE_FIELDS) {
        if (!(other in shown) || shown[other] !== null) continue;
        const set = await settings.change(numberId, patchOf(other, differentValue(other, null, knownNumbers, () => webhooks.channel(`upd3-null-${other}`).url)));
        expect(set).toSucceed(`UPD-003: precondition: ${other} of ${numberId} can be given a value`);
      }
      const before = await recordOf(api, numberId, 'primary', 'UPD-003');
      const res = await settings.change(numberId, patchOf(field, null));
      expect(res).toSucceed(`UPD-003: the update setting ${field} alone to null is accepted (2xx)`);
      const after = await recordOf(api, numberId, 'primary', 'UPD-003');
      const { [field]: _was, ...othersBefore } = settableOf(before);
      const { [field]: _now, ...othersAfter } = settableOf(after);
      expect(othersAfter, `UPD-003: an update naming only ${field}, set to null, leaves the other settable fields as they were`).toEqual(othersBefore);
    });
  }

  test('an update naming no attribute changes nothing, and is accepted or refused as a request defect, never answered 5xx', { tag: ['@UPD-003'], ...HOLDS_EVERY_NUMBER }, async ({ api, knownNumbers, settings }) => {
    // "All optional as far as shown": the empty update is a request the document allows, and
    // "as far as shown" leaves a vendor room to refuse it as having nothing to update. Either
    // way nothing changes. A 5xx tells a client of section 7.3 to retry what will never succeed.
    const numberId = scratchNumber(knownNumbers);
    await guardFields('UPD-003', settings, api, numberId, SETTABLE_FIELDS);
    const before = (await readNumbers(api)).map(settableOf);
    const res = await api.call('update', { params: { numberId }, json: {} });
    expect((res.status >= 200 && res.status < 300) || isRequestDefectAnswer(res.status), `UPD-003: the update of ${numberId} naming no attribute ({}) is accepted (2xx) or refused as a request defect, got ${res.describe()} ${res.text.slice(0, 200)}`).toBe(true);
    const after = (await readNumbers(api)).map(settableOf);
    expect(after, `UPD-003: the update of ${numberId} naming no attribute changed nothing in the numbers list`).toEqual(before);
  });

  test('an update whose body is JSON but not an object, or a valid change wrapped in an array or encoded as a string, is rejected as a request defect and changes nothing', { tag: ['@UPD-005'], ...HOLDS_EVERY_NUMBER }, async ({ api, knownNumbers, settings }) => {
    // Section 4.5 gives the body as an object of optional attributes: another JSON value is not
    // that request, and the valid change inside it must not be read out of it (a server that takes
    // an array's first element, or parses a string twice, would store it).
    const numberId = scratchNumber(knownNumbers);
    const record = await guardFields('UPD-005', settings, api, numberId, SETTABLE_FIELDS);
    const change = BOOLEAN_FIELDS.find((f) => typeof record[f] === 'boolean');
    const valid = JSON.stringify(change ? { [change]: !record[change] } : {});
    const before = (await readNumbers(api)).map(settableOf);
    let violation: Error | null = null;
    for (const { name, spoil } of NON_OBJECT_BODIES) {
      const answer = await answerOf(api.call('update', { params: { numberId }, headers: { 'content-type': 'application/json' }, body: spoil(valid) }));
      violation ??= answer.violation;
      expect.soft(isRequestDefectAnswer(answer.res.status), `UPD-005: an update of ${numberId} with ${name} (${spoil(valid)}) is a request defect, got ${answer.res.describe()} ${answer.res.text.slice(0, 200)}`).toBe(true);
    }
    const after = (await readNumbers(api)).map(settableOf);
    expect(after, `UPD-005: updates of ${numberId} whose bodies are not JSON objects changed nothing in the numbers list`).toEqual(before);
    // UPD-005 first, then what else an answer breaks (a 500 in plain text: ERR-004).
    if (violation) throw violation;
  });

  for (const field of NULLABLE_FIELDS) {
    // Null after two values in turn, so that setting it is seen to change something, and a server
    // that keeps the earlier values (null taking back the last change) shows the first one.
    test(`${field} accepts null, and the list then shows null, whatever values it had before`, { tag: ['@UPD-004'] }, async ({ api, knownNumbers, settings, webhooks }) => {
      const numberId = scratchNumber(knownNumbers);
      const before = await recordOf(api, numberId, 'primary', 'UPD-004');
      const first = differentValue(field, before[field], knownNumbers, () => webhooks.channel(`upd4-${field}-a`).url);
      const second = differentValue(field, first, knownNumbers, () => webhooks.channel(`upd4-${field}-b`).url);
      for (const value of [first, second]) {
        const set = await settings.change(numberId, patchOf(field, value));
        expect(set).toSucceed(`UPD-004: precondition: ${field} can be given the value ${JSON.stringify(value)}`);
      }
      const res = await settings.change(numberId, patchOf(field, null));
      expect(res).toSucceed(`UPD-004: ${field}: null is accepted (2xx)`);
      const after = await recordOf(api, numberId, 'primary', 'UPD-004');
      expect(after[field], `UPD-004: the numbers list shows ${field} = null after the update (it was ${JSON.stringify(first)}, then ${JSON.stringify(second)})`).toBeNull();
    });
  }

  for (const field of BOOLEAN_FIELDS) {
    test(`${field} accepts both true and false, and the list shows each`, { tag: ['@UPD-004'] }, async ({ api, knownNumbers, settings }) => {
      const numberId = scratchNumber(knownNumbers);
      const before = await recordOf(api, numberId, 'primary', 'UPD-004');
      // The opposite value first, so both updates change something.
      for (const value of [before[field] !== true, before[field] === true]) {
        const res = await settings.change(numberId, patchOf(field, value));
        expect(res).toSucceed(`UPD-004: ${field}: ${value} is accepted (2xx)`);
        const after = await recordOf(api, numberId, 'primary', 'UPD-004');
        expect(after[field], `UPD-004: the numbers list shows ${field} = ${value} after the update`).toBe(value);
      }
    });
  }
});

/** `text` with the case of every letter swapped. */
function swapCase(text: string): string {
  return text.replace(/[a-zA-Z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
}

/** `numberId` as a path segment with its first unreserved character percent-encoded, the rest as encodeURIComponent writes them. */
function percentEncodedFirstCharacter(numberId: string): string {
  const at = [...numberId].findIndex((c) => /[A-Za-z0-9\-._~]/.test(c));
  if (at < 0) return encodeURIComponent(numberId);
  const chars = [...numberId];
  const hex = `%${chars[at]!.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  return chars.map((c, i) => (i === at ? hex : encodeURIComponent(c))).join('');
}
