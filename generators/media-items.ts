import fc from 'fast-check';
import { mediaItem, type MediaItemConstraints } from './media-item.ts';
import type { MediaItem } from './send-payload.ts';

export interface MediaItemsConstraints extends MediaItemConstraints {
  /**
   * Fewest items; MMS needs at least one (section 4.6, rule 3).
   * @defaultValue 1
   */
  minItems?: number;
  /**
   * Most items.
   * @defaultValue 10, the reference profile's limit (spec/profile.yaml, choice send.media)
   */
  maxItems?: number;
}

/** The `media` array of an MMS (section 4.6): one to ten `{url, contentType}` items. */
export function mediaItems(constraints: MediaItemsConstraints = {}): fc.Arbitrary<MediaItem[]> {
  const minItems = constraints.minItems ?? 1;
  const maxItems = constraints.maxItems ?? 10;
  if (!(Number.isInteger(minItems) && Number.isInteger(maxItems) && minItems >= 0 && minItems <= maxItems)) {
    throw new Error(`mediaItems: need 0 <= minItems <= maxItems, got ${minItems}..${maxItems}`);
  }
  const item = constraints.contentTypes === undefined ? mediaItem() : mediaItem({ contentTypes: constraints.contentTypes });
  return fc.array(item, { minLength: minItems, maxLength: maxItems });
}
