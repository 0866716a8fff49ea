/**
 * The end of a switch that must handle every case of a union: a case no branch handles fails to compile at the
 * call, and a value the types did not foresee (stored data, say) fails loudly instead of falling into a default.
 */
export function unhandled(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}
