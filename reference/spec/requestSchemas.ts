import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

// The reference's request schemas are the contract's (spec/openapi.yaml, which is deliberately
// lenient) made as strict as the reference profile: unknown fields rejected, profile limits and
// formats added. They are composed at start from the YAML so the two cannot drift apart.

type Schema = Record<string, unknown>;

const OPENAPI_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));

/** Drops OpenAPI annotations (`x-…`) that are not JSON Schema. */
function plain(schema: unknown): Schema {
  return Object.fromEntries(Object.entries(schema as Schema).filter(([key]) => !key.startsWith('x-')));
}

function propertiesOf(schema: Schema): Record<string, Schema> {
  return Object.fromEntries(Object.entries(schema.properties as Record<string, unknown>).map(([name, value]) => [name, plain(value)]));
}

/**
 * The reference profile's limits (spec/profile.yaml send.limits; reference/README.md, Limits and
 * defenses). Lengths count characters (Unicode code points). With them a send is bounded in
 * what it stores: its text and media once, and per recipient a message row and a delivery event
 * that repeat only the externalReference.
 */
export const LIMITS = {
  recipients: 100,
  /** Each recipient before its E.164 check (an E.164 number has at most 16 characters). */
  recipientLength: 32,
  textLength: 1600,
  mediaItems: 10,
  urlLength: 2048,
  contentTypeLength: 255,
  externalReferenceLength: 256,
  sendFromLength: 128,
  numberIdLength: 128,
  campaignregIdLength: 64,
  searchFieldLength: 100,
} as const;

const absoluteUrl = (scheme: string) => ({ type: 'string', format: 'uri', pattern: `^${scheme}://`, maxLength: LIMITS.urlLength });

export interface RequestSchemas {
  sendRequest: Schema;
  searchRequest: Schema;
  numberSettings: Schema;
  numberIdParams: Schema;
  /** Section 4.6 rule 6, from components.schemas.E164. */
  e164: RegExp;
}

export function loadRequestSchemas(path: string = OPENAPI_PATH): RequestSchemas {
  const document = parse(readFileSync(path, 'utf8')) as { components: { schemas: Record<string, Schema> } };
  const components = document.components.schemas;
  const component = (name: string): Schema => {
    const schema = components[name];
    if (!schema) throw new Error(`spec/openapi.yaml has no components.schemas.${name}`);
    return plain(schema);
  };

  // Profile send.media: {url (absolute https URL), contentType (type/subtype)}, 1 to 10 items.
  const mediaItem = {
    ...component('MediaItem'),
    properties: {
      url: absoluteUrl('https'),
      contentType: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$', maxLength: LIMITS.contentTypeLength },
    },
    required: ['url', 'contentType'],
    additionalProperties: false,
  };

  // The component's own rules: a non-empty to (SEND-011), messageType SMS or MMS (SEND-012),
  // externalReference, sendFrom, to and messageType required (SEND-013, SEND-014). Profile
  // send.limits and send.media add SEND-203.
  const send = component('SendRequest');
  const sendProperties = propertiesOf(send);
  // Each field typed as section 4.6's table types it, media an array of media objects, so another
  // JSON type is a request defect (SEND-016). Recipients are only typed here: their E.164 format
  // is checked after ownership and campaign registration (section 4.6 rule order), so it must not
  // fail earlier as a schema error.
  const sendRequest = {
    ...send,
    additionalProperties: false,
    properties: {
      ...sendProperties,
      sendFrom: { ...sendProperties.sendFrom, maxLength: LIMITS.sendFromLength },
      to: { ...sendProperties.to, maxItems: LIMITS.recipients, items: { type: 'string', maxLength: LIMITS.recipientLength } },
      text: { ...sendProperties.text, maxLength: LIMITS.textLength },
      media: { ...sendProperties.media, minItems: 1, maxItems: LIMITS.mediaItems, items: mediaItem },
      externalReference: { ...sendProperties.externalReference, maxLength: LIMITS.externalReferenceLength },
    },
  };

  // Profile search.request (SEARCH-202): every field optional, npa/nxx three digits, state two
  // letters, zipCode five digits, unknown fields rejected.
  const search = component('SearchRequest');
  const searchProperties = propertiesOf(search);
  const searchRequest = {
    ...search,
    additionalProperties: false,
    properties: {
      ...searchProperties,
      npa: { ...searchProperties.npa, pattern: '^[0-9]{3}$' },
      nxx: { ...searchProperties.nxx, pattern: '^[0-9]{3}$' },
      state: { ...searchProperties.state, pattern: '^[A-Za-z]{2}$' },
      zipCode: { ...searchProperties.zipCode, pattern: '^[0-9]{5}$' },
      city: { ...searchProperties.city, maxLength: LIMITS.searchFieldLength },
      rateCenter: { ...searchProperties.rateCenter, maxLength: LIMITS.searchFieldLength },
    },
  };

  // UPD-004: the nullable fields accept null; UPD-203: a wrong type or an unknown field is 400.
  // Webhook overrides must be absolute http(s) URLs: a target the server cannot POST to would
  // only turn into silently failing deliveries later.
  const settings = component('NumberSettings');
  const settingsProperties = propertiesOf(settings);
  const nullableUrl = { anyOf: [{ type: 'null' }, absoluteUrl('https?')] };
  const numberSettings = {
    ...settings,
    additionalProperties: false,
    properties: {
      ...settingsProperties,
      campaignregId: { ...settingsProperties.campaignregId, maxLength: LIMITS.campaignregIdLength },
      webhookInboundOverride: nullableUrl,
      webhookDeliveryOverride: nullableUrl,
    },
  };

  const numberIdParams = {
    type: 'object',
    properties: { numberId: { type: 'string', minLength: 1, maxLength: LIMITS.numberIdLength } },
    required: ['numberId'],
  };

  const e164Pattern = component('E164').pattern;
  if (typeof e164Pattern !== 'string') throw new Error('spec/openapi.yaml: components.schemas.E164 has no pattern');
  return { sendRequest, searchRequest, numberSettings, numberIdParams, e164: new RegExp(e164Pattern) };
}
