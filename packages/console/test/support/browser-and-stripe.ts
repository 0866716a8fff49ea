import { afterAll, beforeAll } from "vitest";
import { type StripeDouble, startStripeDouble } from "../../../server/test/support/stripe-double.js";
import { launchBrowser } from "./browser.js";

/**
 * One Stripe double and one browser for a test file, started before its tests and closed after them (the collection
 * and portal tests' set-up). Read `stripe` and `browser` inside tests: they exist once `beforeAll` has run.
 */
export function stripeAndBrowserOfThisFile() {
  let stripe: StripeDouble | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    stripe = await startStripeDouble();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await stripe?.close();
  });
  return {
    get stripe(): StripeDouble {
      if (!stripe) throw new Error("the Stripe double starts in beforeAll");
      return stripe;
    },
    get browser(): Awaited<ReturnType<typeof launchBrowser>> {
      if (!browser) throw new Error("the browser starts in beforeAll");
      return browser;
    },
  };
}
