import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";

/** Presses a button by keyboard: focused, then Enter. */
export async function press(button: Locator) {
  await button.focus();
  await button.press("Enter");
}

/** A change asked twice: the button, then the confirmation that took the focus. */
export async function confirm(page: Page, button: Locator, confirmation: string) {
  await press(button);
  const asked = page.getByRole("button", { name: confirmation });
  await expect.poll(() => asked.evaluate((element) => element === document.activeElement)).toBe(true);
  await page.keyboard.press("Enter");
}
