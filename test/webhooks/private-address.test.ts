// The SSRF guard against the IANA special-purpose registries, one row per range (IPv4 and IPv6),
// plus the forms that smuggle an IPv4 address inside IPv6.
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/webhooks/private-address.ts';

const BLOCKED: Array<[string, string]> = [
  // IPv4 special-purpose registry
  ['0.0.0.0', '"this network" 0.0.0.0/8'],
  ['0.1.2.3', '"this network" 0.0.0.0/8'],
  ['10.1.2.3', 'private 10.0.0.0/8'],
  ['100.64.0.1', 'shared address space 100.64.0.0/10'],
  ['100.127.255.255', 'shared address space 100.64.0.0/10'],
  ['127.0.0.1', 'loopback 127.0.0.0/8'],
  ['127.255.255.254', 'loopback 127.0.0.0/8'],
  ['169.254.169.254', 'link-local 169.254.0.0/16 (cloud metadata)'],
  ['172.16.0.1', 'private 172.16.0.0/12'],
  ['172.31.255.255', 'private 172.16.0.0/12'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0.0/24'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['192.31.196.1', 'AS112-v4 192.31.196.0/24'],
  ['192.52.193.1', 'AMT 192.52.193.0/24'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast 192.88.99.0/24'],
  ['192.168.1.1', 'private 192.168.0.0/16'],
  ['192.175.48.1', 'direct delegation AS112 192.175.48.0/24'],
  ['198.18.0.1', 'benchmarking 198.18.0.0/15'],
  ['198.19.255.255', 'benchmarking 198.18.0.0/15'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.7', 'documentation TEST-NET-3'],
  ['224.0.0.1', 'multicast 224.0.0.0/4'],
  ['239.255.255.250', 'multicast 224.0.0.0/4'],
  ['240.0.0.1', 'reserved 240.0.0.0/4'],
  ['255.255.255.255', 'limited broadcast'],
  // IPv6 special-purpose registry
  ['::', 'unspecified ::/128'],
  ['::1', 'loopback ::1/128'],
  ['[::1]', 'loopback in URL brackets'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped private'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback ::ffff:0:0/96'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback, dotted'],
  ['::ffff:0:a9fe:a9fe', 'IPv4-translated link-local'],
  ['::ffff:0:0', 'IPv4-translated unspecified'],
  ['::7f00:1', 'deprecated IPv4-compatible ::/96'],
  ['::808:808', 'deprecated IPv4-compatible ::/96, even of a public IPv4'],
  ['::127.0.0.1', 'dotted IPv4-compatible loopback'],
  ['64:ff9b::a00:1', 'NAT64 to a private IPv4'],
  ['64:ff9b::7f00:1', 'NAT64 to loopback'],
  ['64:ff9b:1::1', 'local-use IPv4/IPv6 translation 64:ff9b:1::/48'],
  ['100::1', 'discard-only 100::/64'],
  ['2001::1', 'TEREDO 2001::/32'],
  ['2001:1::1', 'IETF protocol assignments 2001::/23'],
  ['2001:2::1', 'benchmarking 2001:2::/48'],
  ['2001:3::1', 'AMT 2001:3::/32'],
  ['2001:4:112::1', 'AS112-v6 2001:4:112::/48'],
  ['2001:10::1', 'deprecated ORCHID 2001:10::/28'],
  ['2001:20::1', 'ORCHIDv2 2001:20::/28'],
  ['2001:30::1', 'drone remote ID 2001:30::/28'],
  ['2001:db8::1', 'documentation 2001:db8::/32'],
  ['3fff::1', 'documentation 3fff::/20'],
  ['2002:0a00:0001::1', '6to4 of a private IPv4'],
  ['2002:7f00:0001::1', '6to4 of loopback'],
  ['2620:4f:8000::1', 'direct delegation AS112 2620:4f:8000::/48'],
  ['5f00::1', 'segment routing 5f00::/16'],
  ['fc00::1', 'unique-local fc00::/7'],
  ['fd12:3456::1', 'unique-local fc00::/7'],
  ['fe80::1', 'link-local fe80::/10'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['fec0::1', 'deprecated site-local fec0::/10'],
  ['ff02::1', 'multicast ff00::/8'],
  ['4000::1', 'unallocated, outside 2000::/3'],
  // Not an IP address at all
  ['not-an-ip', 'a name'],
  ['', 'empty'],
  ['127.1', 'shorthand IPv4 (never what a resolver returns)'],
  ['0x7f.0.0.1', 'hex IPv4'],
];

const PUBLIC: Array<[string, string]> = [
  ['8.8.8.8', 'public IPv4'],
  ['1.1.1.1', 'public IPv4'],
  ['100.63.255.255', 'just below shared address space'],
  ['100.128.0.0', 'just above shared address space'],
  ['172.15.255.255', 'just below 172.16.0.0/12'],
  ['172.32.0.1', 'just above 172.16.0.0/12'],
  ['192.169.0.1', 'just above 192.168.0.0/16'],
  ['198.20.0.1', 'just above benchmarking'],
  ['2606:4700:4700::1111', 'public IPv6'],
  ['2a00:1450:4001::200e', 'public IPv6'],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['::ffff:0:8.8.8.8', 'IPv4-translated public'],
  ['64:ff9b::808:808', 'NAT64 to a public IPv4'],
  ['2002:0808:0808::1', '6to4 of a public IPv4'],
];

describe('isPrivateAddress', () => {
  it.each(BLOCKED)('refuses %s (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
  it.each(PUBLIC)('lets %s through (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});
