import type { ContractCreate, ErrorIssue, TaxRate, TaxRateCreate } from "@billing/shared";
import { badRequest, notFound } from "../domain/errors.js";
import type { Repositories } from "../repositories/index.js";
import type { CallScope } from "./call-scope.js";
import { publishChange } from "./webhook-events.js";

/** Stores a new tax rate and publishes `tax_rate.created`. */
export async function createTaxRate({ repositories, accountId, log }: CallScope, input: TaxRateCreate) {
  const created = await repositories.taxRates.create(accountId, input);
  await publishChange(repositories, accountId, log, { type: "tax_rate.created", data: created });
  return created;
}

/** Renames the rate named by id or code (404 when the account has none) and publishes `tax_rate.updated`. */
export async function renameTaxRate(
  { repositories, accountId, log }: CallScope,
  idOrCode: string,
  name: string,
): Promise<TaxRate> {
  const updated = await repositories.taxRates.rename(accountId, idOrCode, name);
  if (!updated) throw notFound("Tax rate");
  await publishChange(repositories, accountId, log, { type: "tax_rate.updated", data: updated });
  return updated;
}

/**
 * Archives the rate named by id or code (404 when the account has none) and publishes `tax_rate.updated`; a rate
 * archived before is answered as it is, unchanged.
 */
export async function archiveTaxRate({ repositories, accountId, log }: CallScope, idOrCode: string) {
  const existing = await repositories.taxRates.get(accountId, idOrCode);
  if (!existing) throw notFound("Tax rate");
  if (existing.archivedAt) return existing;
  const archived = await repositories.taxRates.archive(accountId, existing.id);
  if (!archived) throw notFound("Tax rate");
  await publishChange(repositories, accountId, log, { type: "tax_rate.updated", data: archived });
  return archived;
}

/** Where a request names tax rate codes: the dotted path of the field, and the codes it lists. */
export interface NamedCodes {
  path: string;
  codes: readonly string[] | undefined;
}

/** Where a contract names codes: itself, its products, its groups and their products. */
export const contractTaxCodes = ({
  taxRateCodes,
  products = [],
  productGroups = [],
}: Pick<ContractCreate, "taxRateCodes" | "products" | "productGroups">): NamedCodes[] => [
  { path: "taxRateCodes", codes: taxRateCodes },
  ...products.map((product, index) => ({ path: `products.${index}.taxRateCodes`, codes: product.taxRateCodes })),
  ...productGroups.flatMap((group, index) => [
    { path: `productGroups.${index}.taxRateCodes`, codes: group.taxRateCodes },
    ...group.products.map((product, productIndex) => ({
      path: `productGroups.${index}.products.${productIndex}.taxRateCodes`,
      codes: product.taxRateCodes,
    })),
  ]),
];

/**
 * Refuses (400 naming each field and index) codes that name no rate of the account, or an archived one: terms may
 * name only rates that can price an invoice. One read for every field of the request.
 */
export async function requireLiveTaxRates(repositories: Repositories, accountId: string, named: NamedCodes[]) {
  const codes = [...new Set(named.flatMap((field) => field.codes ?? []))];
  if (codes.length === 0) return;
  const found = new Map((await repositories.taxRates.ofCodes(accountId, codes)).map((rate) => [rate.code, rate]));
  const issues: ErrorIssue[] = named.flatMap(({ path, codes: listed = [] }) =>
    listed.flatMap((code, index) => {
      const rate = found.get(code);
      if (rate && !rate.archivedAt) return [];
      const message = rate ? `tax rate "${code}" is archived` : `no tax rate has code "${code}"`;
      return [{ path: `${path}.${index}`, message }];
    }),
  );
  if (issues.length > 0) throw badRequest(issues.map((issue) => `${issue.path}: ${issue.message}`).join("; "), issues);
}
