import type { WebhookEndpoint, WebhookEndpointCreate, WebhookEndpointUpdate, WebhookEventType } from "@billing/shared";
import { type Db, type Filter, ObjectId } from "mongodb";
import type { SecretBox } from "../auth/secret-box.js";
import { isDuplicateKeyError } from "../db/duplicate-key.js";
import { findOwned } from "../db/find-owned.js";
import { iso, toObjectId } from "../db/ids.js";
import { findPage, type PageRequest } from "../db/pagination.js";
import { conflict } from "../domain/errors.js";
import { subscribes } from "../domain/webhooks/events.js";
import { generateSecret } from "../domain/webhooks/signing.js";

type EndpointDoc = Omit<WebhookEndpoint, "id" | "createdAt" | "updatedAt"> & {
  _id: ObjectId;
  accountId: string;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * One signing secret of an endpoint: generation 1 on creation, n + 1 on each rotation, only ever inserted. The unique
 * `_id` (`<endpointId>/<generation>`) gives concurrent rotations one winner, on FerretDB as on MongoDB.
 */
interface SecretDoc {
  _id: string;
  endpointId: string;
  generation: number;
  /** Sealed (auth/secret-box.ts) when WEBHOOK_SECRET_KEYS is set; the `whsec_` secret itself otherwise. */
  secret: string;
  createdAt: Date;
}

/** How long a rotated-out secret still signs (a second signature), so receivers can switch without losing a message. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60_000;

/** What the delivery worker needs of an endpoint; no account check (it works from the delivery's own endpoint id). */
export interface EndpointTarget {
  url: string;
  status: WebhookEndpoint["status"];
}

const toEndpoint = ({ _id, accountId: _account, createdAt, updatedAt, ...fields }: EndpointDoc): WebhookEndpoint => ({
  id: _id.toHexString(),
  ...fields,
  createdAt: iso(createdAt),
  updatedAt: iso(updatedAt),
});

/** Each type once: the list is a set of subscriptions. */
const uniqueTypes = (types: WebhookEventType[] | undefined) => [...new Set(types ?? [])];

/** What deciding an endpoint's subscription reads of it. */
export type SubscribingEndpoint = Pick<EndpointDoc, "_id" | "eventTypes" | "createdAt">;

/** The ids of those enabled endpoints that take `type` and existed when the change happened. */
export const subscribersAmong = (enabled: SubscribingEndpoint[], type: WebhookEventType, occurredAt: Date) =>
  enabled
    .filter((endpoint) => subscribes(endpoint.eventTypes, type) && endpoint.createdAt <= occurredAt)
    .map((endpoint) => endpoint._id.toHexString());

export function createWebhookEndpointRepository(db: Db, secretBox: SecretBox) {
  const endpoints = db.collection<EndpointDoc>("webhookEndpoints");
  const enabled = (accountId: string): Promise<SubscribingEndpoint[]> =>
    endpoints.find({ accountId, status: "ENABLED" }, { projection: { eventTypes: 1, createdAt: 1 } }).toArray();
  const secrets = db.collection<SecretDoc>("webhookSecrets");
  /** A new secret and its record; the sealed text is bound to the record's `_id`. */
  const newSecret = (endpointId: string, generation: number, now: Date) => {
    const _id = `${endpointId}/${generation}`;
    const secret = generateSecret();
    const doc: SecretDoc = { _id, endpointId, generation, secret: secretBox.seal(secret, _id), createdAt: now };
    return { secret, doc };
  };
  const openSecret = ({ _id, secret }: SecretDoc) => secretBox.open(secret, _id);

  const latestSecrets = (endpointId: string, count: number) =>
    secrets.find({ endpointId }).sort({ generation: -1 }).limit(count).toArray();

  return {
    async ensureIndexes() {
      await endpoints.createIndex({ accountId: 1, _id: 1 });
      await endpoints.createIndex({ accountId: 1, status: 1 });
      await secrets.createIndex({ endpointId: 1, generation: 1 });
    },

    /**
     * The secret is stored first: a crash before the endpoint's insert leaves a secret nothing uses, never an endpoint
     * without one.
     */
    async create(
      accountId: string,
      input: WebhookEndpointCreate,
    ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
      const now = new Date();
      const doc: EndpointDoc = {
        _id: new ObjectId(),
        accountId,
        url: input.url,
        eventTypes: uniqueTypes(input.eventTypes),
        ...(input.description !== undefined && { description: input.description }),
        status: "ENABLED",
        createdAt: now,
        updatedAt: now,
      };
      const first = newSecret(doc._id.toHexString(), 1, now);
      await secrets.insertOne(first.doc);
      await endpoints.insertOne(doc);
      return { endpoint: toEndpoint(doc), secret: first.secret };
    },

    async get(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
      const doc = await findOwned(endpoints, accountId, toObjectId(endpointId));
      return doc ? toEndpoint(doc) : undefined;
    },

    list(accountId: string, page: PageRequest) {
      return findPage(endpoints, { accountId } as Filter<EndpointDoc>, page, toEndpoint);
    },

    /** Replaces the fields given (last writer wins, as for customers). */
    async update(
      accountId: string,
      endpointId: string,
      changes: WebhookEndpointUpdate,
    ): Promise<WebhookEndpoint | undefined> {
      const existing = await findOwned(endpoints, accountId, toObjectId(endpointId), { _id: 1 });
      if (!existing) return undefined;
      const { eventTypes, ...fields } = changes;
      const updated = await endpoints.findOneAndUpdate(
        { _id: existing._id },
        { $set: { ...fields, ...(eventTypes && { eventTypes: uniqueTypes(eventTypes) }), updatedAt: new Date() } },
        { returnDocument: "after" },
      );
      return updated ? toEndpoint(updated) : undefined;
    },

    /** Removes the endpoint; its secrets go with it, and its pending deliveries fail when their turn comes. */
    async delete(accountId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
      const existing = await findOwned(endpoints, accountId, toObjectId(endpointId));
      if (!existing) return undefined;
      const deleted = await endpoints.findOneAndDelete({ _id: existing._id });
      if (!deleted) return undefined;
      await secrets.deleteMany({ endpointId: existing._id.toHexString() });
      return toEndpoint(deleted);
    },

    /**
     * A new secret, the next generation; the one it replaces still signs for SECRET_OVERLAP_MS. Of concurrent rotations
     * one wins the generation's insert, the others are 409 (their secret would never have signed anything).
     */
    async rotateSecret(accountId: string, endpointId: string): Promise<string | undefined> {
      const endpoint = await findOwned(endpoints, accountId, toObjectId(endpointId), { _id: 1 });
      if (!endpoint) return undefined;
      const id = endpoint._id.toHexString();
      const [latest] = await latestSecrets(id, 1);
      const next = newSecret(id, (latest?.generation ?? 0) + 1, new Date());
      try {
        await secrets.insertOne(next.doc);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        throw conflict(
          "The secret was rotated by another request at the same moment: rotate again for a secret of your own",
        );
      }
      return next.secret;
    },

    /**
     * The secrets that sign now: the newest, and the one before it while the newest is younger than the overlap.
     * Throws SealedSecretError when one is sealed with a key WEBHOOK_SECRET_KEYS no longer lists.
     */
    async signingSecrets(endpointId: string, now: Date): Promise<string[]> {
      const [newest, previous] = await latestSecrets(endpointId, 2);
      if (!newest) return [];
      const overlapping = previous && now.getTime() - newest.createdAt.getTime() < SECRET_OVERLAP_MS;
      return (overlapping ? [newest, previous] : [newest]).map(openSecret);
    },

    /** The account's enabled endpoints, as `subscribersAmong` reads them (a billing pass reads them once). */
    enabled,

    /** Enabled endpoints of the account that take `type` and existed when the change happened. */
    async subscribers(accountId: string, type: WebhookEventType, occurredAt: Date): Promise<string[]> {
      return subscribersAmong(await enabled(accountId), type, occurredAt);
    },

    async target(endpointId: string): Promise<EndpointTarget | undefined> {
      const doc = await endpoints.findOne({ _id: new ObjectId(endpointId) }, { projection: { url: 1, status: 1 } });
      return doc ? { url: doc.url, status: doc.status } : undefined;
    },

    /** A 410 from the receiver: it wants no more messages. */
    async disable(endpointId: string) {
      await endpoints.updateOne(
        { _id: new ObjectId(endpointId) },
        { $set: { status: "DISABLED", updatedAt: new Date() } },
      );
    },
  };
}
