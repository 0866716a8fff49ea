import { BlockList, isIP } from "node:net";

/**
 * Addresses no webhook may reach unless WEBHOOK_ALLOW_PRIVATE_NETWORKS is set: private, loopback, link-local
 * (cloud metadata lives at 169.254.169.254), carrier-grade NAT, "this network", multicast and reserved ranges.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  // IPv4-compatible (`::a.b.c.d`, deprecated by RFC 4291, routed nowhere), with unspecified `::` and loopback `::1`.
  ["::", 96],
  // NAT64 local-use (RFC 8215): a translator of the operator's own; where it puts the IPv4 address is its choice.
  ["64:ff9b:1::", 48],
  ["100::", 64],
  // Teredo: the IPv4 address it tunnels to is obfuscated inside; nothing a webhook receiver needs.
  ["2001::", 32],
  ["2001:db8::", 32],
  ["3fff::", 20],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv6");
}

/** The eight 16-bit groups of IPv6 text (as `isIP` accepts it: `::`, a dotted IPv4 tail or a zone may be in it). */
function ipv6Groups(address: string): number[] {
  let text = address.split("%")[0] ?? "";
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groupsOf = (part: string | undefined) => (part ? part.split(":").map((group) => parseInt(group, 16)) : []);
  const [head, tail] = text.split("::");
  const [before, after] = [groupsOf(head), groupsOf(tail)];
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

const dottedIpv4 = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join(".");

/**
 * The IPv4 address an IPv6 one stands for, in the forms that carry it readably: IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-translated `::ffff:0:a.b.c.d`, NAT64's well-known prefix `64:ff9b::a.b.c.d` and 6to4 `2002:AABB:CCDD::/48`.
 * Reaching one of these may reach that IPv4 address, so it is exactly as private as the IPv4 address.
 */
function embeddedIpv4(groups: number[]): string | undefined {
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const zeroUpTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroUpTo(5) && g5 === 0xffff) return dottedIpv4(g6, g7);
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) return dottedIpv4(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dottedIpv4(g6, g7);
  if (g0 === 0x2002) return dottedIpv4(g1 ?? 0, g2 ?? 0);
  return undefined;
}

/** Whether an IP address (v4 or v6 text, in any spelling) is one a webhook may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return PRIVATE.check(address, "ipv4");
  if (version !== 6) return true;
  const groups = ipv6Groups(address);
  const inner = embeddedIpv4(groups);
  if (inner) return PRIVATE.check(inner, "ipv4");
  return PRIVATE.check(groups.map((group) => group.toString(16)).join(":"), "ipv6");
}

/** The host of a URL as an IP address when it is one (brackets of IPv6 removed), else undefined. */
const literalAddress = (hostname: string) => {
  const bare = hostname.replace(/^\[|\]$/g, "");
  return isIP(bare) ? bare : undefined;
};

/**
 * Why an endpoint URL is refused, or undefined when it is acceptable. Without private networks: https only, and
 * no literal private address. Names (`localhost` too) are resolved at delivery time and their addresses checked then,
 * so a name that resolves to a private address later (DNS rebinding) is refused all the same.
 */
export function urlProblem(url: string, allowPrivateNetworks: boolean): string | undefined {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) return "must not carry credentials";
  if (allowPrivateNetworks) return undefined;
  if (parsed.protocol !== "https:") return "must be an https URL";
  const literal = literalAddress(parsed.hostname);
  if (literal && isPrivateAddress(literal)) {
    return "must not point to a private, loopback or link-local address";
  }
  return undefined;
}
