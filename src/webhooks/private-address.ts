// SSRF guard (D3): which IP addresses a webhook may never be sent to unless the operator allows it.
import { isIP } from 'node:net';

/** IPv4 ranges that are not the public internet: [network, prefix length]. */
const V4_BLOCKED: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];

const V4_MASKS = V4_BLOCKED.map(([net, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (parseV4(net) & mask) >>> 0, mask };
});

function parseV4(s: string): number {
  const p = s.split('.').map(Number);
  return (((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0);
}

function isBlockedV4(a: number): boolean {
  return V4_MASKS.some(({ net, mask }) => ((a & mask) >>> 0) === net);
}

/** Eight 16-bit groups; an embedded dotted IPv4 tail is folded into the last two. */
function parseV6(s: string): number[] {
  s = s.split('%')[0]!;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseV4(tail);
    s = s.slice(0, lastColon + 1) + (v4 >>> 16).toString(16) + ':' + (v4 & 0xffff).toString(16);
  }
  const [head = '', rest] = s.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? 0 : 8 - h.length - t.length;
  return [...h, ...Array<string>(zeros).fill('0'), ...t].map((g) => parseInt(g, 16));
}

function isBlockedV6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const v4 = ((g6 << 16) | g7) >>> 0;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0) {
    // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, which covers :: and ::1).
    if (g5 === 0xffff || g5 === 0) return isBlockedV4(v4);
    return true;
  }
  if (g0 === 0x64 && g1 === 0xff9b) return g2 !== 0 || g3 !== 0 || g4 !== 0 || g5 !== 0 || isBlockedV4(v4); // NAT64
  if (g0 === 0x2002) return isBlockedV4(((g1 << 16) | g2) >>> 0); // 6to4 carries an IPv4 address
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true; // discard-only
  if (g0 === 0x2001 && g1 === 0xdb8) return true; // documentation
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return true; // site-local (deprecated) fec0::/10
  if ((g0 & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** True for private, loopback, link-local, CGNAT, unique-local, multicast, reserved and
 * unspecified addresses (IPv4-mapped and -embedded forms included), and for anything that is not
 * an IP address at all. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zoneless = bare.split('%')[0]!;
  switch (isIP(zoneless)) {
    case 4:
      return isBlockedV4(parseV4(zoneless));
    case 6:
      return isBlockedV6(parseV6(zoneless));
    default:
      return true;
  }
}
