/** Whether a PATCH body sets no field (`{}` or no body): it changes nothing, so nothing is written or published. */
export const changesNothing = (changes: object) => Object.values(changes).every((value) => value === undefined);
