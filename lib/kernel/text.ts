/**
 * Small text helpers for request text, written as loops where the obvious regular expression would
 * backtrack: `/\/+$/` and its kind try every start position, quadratic on a long run of the character.
 */

/** `text` without the trailing run of `char` (one UTF-16 code unit). */
export function trimEnd(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return text.slice(0, end);
}

/** `text` safe as HTML or XML content and as a quoted attribute value (`& < > " '` as character references). */
export function escapeMarkup(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
