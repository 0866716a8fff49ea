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
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv6");
}

/** An IPv4 address carried inside an IPv6 one (`::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`), else undefined. */
function embeddedIpv4(address: string): string | undefined {
  const tail = /^(?:::ffff:(?:0:)?|64:ff9b::)(?<tail>.+)$/i.exec(address)?.groups?.tail;
  if (tail === undefined) return undefined;
  if (isIP(tail) === 4) return tail;
  const groups = /^(?<high>[0-9a-f]{1,4}):(?<low>[0-9a-f]{1,4})$/i.exec(tail)?.groups;
  if (!groups?.high || !groups.low) return undefined;
  const high = parseInt(groups.high, 16);
  const low = parseInt(groups.low, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** Whether an IP address (v4 or v6 text) is one a webhook may not reach by default. */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return PRIVATE.check(address, "ipv4");
  if (version !== 6) return true;
  const inner = embeddedIpv4(address);
  return inner ? PRIVATE.check(inner, "ipv4") : PRIVATE.check(address, "ipv6");
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
