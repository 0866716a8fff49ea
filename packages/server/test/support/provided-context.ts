/** What the global setup hands every test file. */
declare module "vitest" {
  export interface ProvidedContext {
    mongodbUri: string;
  }
}

export {};
