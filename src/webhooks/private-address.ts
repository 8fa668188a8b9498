// SSRF guard (docs/webhooks.md): which IP addresses a webhook may never be sent to unless the
// operator allows it. The classification is ipaddr.js's, which follows the IANA special-purpose
// registries for IPv4 and IPv6; only what it calls `unicast` (and, for IPv6, lies in the global
// unicast space 2000::/3) is public. Forms that carry an IPv4 address inside an IPv6 one are judged
// by the IPv4 address.
import ipaddr from 'ipaddr.js';

/** IPv6 ranges whose last 32 bits are an IPv4 address the traffic ends up at. */
const EMBEDS_IPV4: ReadonlySet<string> = new Set(['ipv4Mapped', 'rfc6145']);
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];

function blockedV4(a: ipaddr.IPv4): boolean {
  return a.range() !== 'unicast';
}

function v4From(bytes: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4(bytes);
}

function blockedV6(a: ipaddr.IPv6): boolean {
  const range = a.range();
  const b = a.toByteArray();
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated): the IPv4 address decides.
  if (EMBEDS_IPV4.has(range)) return blockedV4(v4From(b.slice(12)));
  // NAT64 (64:ff9b::a.b.c.d): a gateway forwards to the IPv4 address, which decides.
  if (a.match(NAT64_WELL_KNOWN)) return blockedV4(v4From(b.slice(12)));
  // 6to4 (2002:AABB:CCDD::/48) carries the IPv4 address of its relay end.
  if (range === '6to4') return blockedV4(v4From(b.slice(2, 6)));
  if (range !== 'unicast') return true;
  // Outside 2000::/3 nothing is allocated for public use (this also covers the deprecated
  // IPv4-compatible ::a.b.c.d, which the registries no longer list).
  return !a.match(GLOBAL_UNICAST_V6);
}

/** True for every address the special-purpose registries set apart (private, loopback, link-local,
 * shared, multicast, documentation, benchmarking, reserved, unspecified, translation prefixes that
 * point at one of those) and for anything that is not an IP address at all. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zoneless = bare.split('%')[0]!;
  if (ipaddr.IPv4.isValidFourPartDecimal(zoneless)) return blockedV4(ipaddr.IPv4.parse(zoneless));
  if (ipaddr.IPv6.isValid(zoneless)) return blockedV6(ipaddr.IPv6.parse(zoneless));
  return true;
}
