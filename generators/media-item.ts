import fc from 'fast-check';
import type { MediaItem } from './send-payload.ts';

/** Media types MMS gateways commonly carry (RFC 6838 type/subtype), with a file extension each. */
export const MMS_CONTENT_TYPES: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'audio/mpeg': 'mp3',
  'text/vcard': 'vcf',
};

export interface MediaItemConstraints {
  /**
   * Media types to use.
   * @defaultValue the keys of MMS_CONTENT_TYPES
   */
  contentTypes?: readonly string[];
}

/**
 * A DNS label (RFC 1123). '--' is kept out: a label with it in third and fourth place is
 * reserved for IDNA (RFC 5891 4.2.3.1), and 'xn--…' would be decoded as punycode by a URL parser.
 */
const LABEL = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).filter((label) => !label.includes('--'));

/** Hosts under the names RFC 2606 reserves for examples, so no real server is ever named. */
const HOST = fc
  .tuple(fc.option(LABEL, { nil: undefined }), fc.constantFrom('example.com', 'example.net', 'example.org'))
  .map(([sub, domain]) => (sub === undefined ? domain : `${sub}.${domain}`));
const SEGMENT = fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/);

/**
 * One media input for an MMS (section 4.6): `{url, contentType}`, the reference profile's
 * shape (spec/profile.yaml, choice send.media), with an absolute https URL (RFC 3986).
 */
export function mediaItem(constraints: MediaItemConstraints = {}): fc.Arbitrary<MediaItem> {
  const contentTypes = constraints.contentTypes ?? Object.keys(MMS_CONTENT_TYPES);
  if (contentTypes.length === 0) throw new Error('mediaItem: contentTypes must not be empty');
  return fc
    .record({
      contentType: fc.constantFrom(...contentTypes),
      host: HOST,
      folders: fc.array(SEGMENT, { maxLength: 3 }),
      name: SEGMENT,
      version: fc.option(fc.nat({ max: 9999 }), { nil: undefined }),
    })
    .map(({ contentType, host, folders, name, version }) => {
      const extension = MMS_CONTENT_TYPES[contentType] ?? 'bin';
      const query = version === undefined ? '' : `?v=${version}`;
      return { url: `https://${host}/${[...folders, `${name}.${extension}`].join('/')}${query}`, contentType };
    });
}
