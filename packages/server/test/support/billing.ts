import type { TestServer } from "./server.js";

/** A customer and a billing helper bound to one new account. */
export async function billingAccount(server: TestServer) {
  const { token, accountId } = await server.newAccount();
  const post = async (path: string, body: unknown, expected = 200) => {
    const response = await server.rest("POST", path, { token, body });
    if (response.status !== expected) throw new Error(`${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const customer = (await post("/customers", { name: "Billed Co" }, 201)).customer;
  return {
    token,
    accountId,
    customerId: customer.id as string,
    post,
    contract: async (fields: Record<string, unknown>) => (await post("/contracts", { customerId: customer.id, name: "Plan", ...fields }, 201)).contract,
    run: async (at: string) => (await post("/billing-runs", { at })).run,
    invoices: async (contractId: string) =>
      (await server.rest("GET", `/invoices?contractId=${contractId}&limit=1000`, { token })).body.invoices as any[],
    measure: (meterId: string, day: string, value: number) => {
      const [year, month, date] = day.split("-").map(Number);
      return post("/measurements", { customerId: customer.id, meterId, usageDate: { year, month, day: date }, value });
    },
    grant: (amount: number) => post("/credits", { customerId: customer.id, amount, type: "Grant" }, 201),
    ledger: async () => (await server.rest("GET", `/credits?customerId=${customer.id}&limit=1000`, { token })).body.entries as any[],
  };
}

export const monthly = (billingDay: number) => ({ duration: { unit: "MONTH", value: 1 }, billingDay });
