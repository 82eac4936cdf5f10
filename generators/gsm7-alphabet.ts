/**
 * The GSM 7-bit default alphabet (3GPP TS 23.038 section 6.2.1). Text made only of these
 * characters travels as 7-bit SMS (160 per segment); one character outside them turns the
 * whole message into UCS-2 (70 per segment), which is where length and segment bugs hide.
 */

/** The basic character set, without ESC (0x1B), which only introduces the extension table. */
export const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

/**
 * The extension table (3GPP TS 23.038 section 6.2.1.1): each costs two septets. The form
 * feed is left out: it is a page break on a phone and a control character to a JSON parser.
 */
export const GSM7_EXTENSION = '^{}\\[~]|€';

/** True when every character of `text` is in the GSM 7-bit default alphabet or its extension. */
export function isGsm7(text: string): boolean {
  for (const char of text) if (!GSM7_BASIC.includes(char) && !GSM7_EXTENSION.includes(char)) return false;
  return true;
}
