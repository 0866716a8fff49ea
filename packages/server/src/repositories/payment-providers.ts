import type { PaymentProviderName } from "@billing/shared";
import type { Db } from "mongodb";
import type { SecretBox } from "../auth/secret-box.js";

/** An account's connection to a payment provider: its keys sealed (bound to this record and field), never shown. */
interface PaymentProviderDoc {
  /** `<accountId>/<provider>`: one connection per account and provider. */
  _id: string;
  accountId: string;
  provider: PaymentProviderName;
  secretKey: string;
  webhookSecret: string;
  secretKeyLast4: string;
  apiBase: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A connection with its keys opened: for the provider module only, never for an answer or a log line. */
export interface ProviderConnection {
  accountId: string;
  provider: PaymentProviderName;
  secretKey: string;
  webhookSecret: string;
  apiBase: string;
}

export interface ProviderConnectionView {
  provider: PaymentProviderName;
  apiBase: string;
  secretKeyLast4: string;
  createdAt: Date;
  updatedAt: Date;
}

const idOf = (accountId: string, provider: PaymentProviderName) => `${accountId}/${provider}`;

export function createPaymentProviderRepository(db: Db, secretBox: SecretBox) {
  const connections = db.collection<PaymentProviderDoc>("payment_providers");
  const view = ({ provider, apiBase, secretKeyLast4, createdAt, updatedAt }: PaymentProviderDoc) => ({
    provider,
    apiBase,
    secretKeyLast4,
    createdAt,
    updatedAt,
  });

  return {
    // Read by `_id` only: no index beyond it.
    async ensureIndexes() {},

    /** Connects, or replaces the keys of, the account's provider (the last PUT wins, as for any setting). */
    async put(connection: ProviderConnection, now: Date): Promise<ProviderConnectionView> {
      const _id = idOf(connection.accountId, connection.provider);
      const existing = await connections.findOne({ _id }, { projection: { createdAt: 1 } });
      const doc: PaymentProviderDoc = {
        _id,
        accountId: connection.accountId,
        provider: connection.provider,
        secretKey: secretBox.seal(connection.secretKey, `${_id}/secretKey`),
        webhookSecret: secretBox.seal(connection.webhookSecret, `${_id}/webhookSecret`),
        secretKeyLast4: connection.secretKey.slice(-4),
        apiBase: connection.apiBase,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      await connections.replaceOne({ _id }, doc, { upsert: true });
      return view(doc);
    },

    async view(accountId: string, provider: PaymentProviderName): Promise<ProviderConnectionView | undefined> {
      const doc = await connections.findOne({ _id: idOf(accountId, provider) });
      return doc ? view(doc) : undefined;
    },

    /** The connection with its keys opened; throws SealedSecretError when a key no longer listed sealed them. */
    async open(accountId: string, provider: PaymentProviderName): Promise<ProviderConnection | undefined> {
      const doc = await connections.findOne({ _id: idOf(accountId, provider) });
      if (!doc) return undefined;
      return {
        accountId,
        provider,
        apiBase: doc.apiBase,
        secretKey: secretBox.open(doc.secretKey, `${doc._id}/secretKey`),
        webhookSecret: secretBox.open(doc.webhookSecret, `${doc._id}/webhookSecret`),
      };
    },

    /** Disconnects: true when there was a connection. */
    async remove(accountId: string, provider: PaymentProviderName): Promise<boolean> {
      return (await connections.deleteOne({ _id: idOf(accountId, provider) })).deletedCount > 0;
    },
  };
}
export type PaymentProviderRepository = ReturnType<typeof createPaymentProviderRepository>;
