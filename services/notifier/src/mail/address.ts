// E-mail addresses: strict validation of a recipient (one bare addr-spec, nothing a header could be
// smuggled through), the configured From address, and the masked forms that are safe to store after
// delivery or to show in an error.

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`);
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;

/** True for one plain address such as "dokter@rs-sehat.example" (no display name, no list). */
export function isAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at > 64) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!LOCAL.test(local)) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return false;
  return TLD.test(labels[labels.length - 1]!);
}

export interface Mailbox {
  name?: string;
  address: string;
}

/** Parses "Name <addr>", "\"Name\" <addr>" or "addr"; undefined when it is not one of those. */
export function parseAddress(value: string): Mailbox | undefined {
  const trimmed = value.trim();
  if (/[\r\n]/.test(trimmed)) return undefined;
  const angle = /^(.*)<([^<>]+)>$/.exec(trimmed);
  if (!angle) return isAddress(trimmed) ? { address: trimmed } : undefined;
  const address = angle[2]!.trim();
  if (!isAddress(address)) return undefined;
  const name = angle[1]!
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .trim();
  return name ? { name, address } : { address };
}

/** "dokter@rs-sehat.example" -> "d***@rs-sehat.example": enough to tell messages apart, not to mail. */
export function maskAddress(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${address[0]}***${address.slice(at)}`;
}

const ADDRESS_LIKE = /<?[^\s<>@"',;:]+@[^\s<>@"',;:]+>?/g;

/** Replaces anything that looks like an address in a server's answer, so errors can be stored. */
export function scrubAddresses(text: string): string {
  return text.replace(ADDRESS_LIKE, '<address>');
}
