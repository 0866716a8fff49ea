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

/** Opens a <details> by keyboard: its summary focused, then Enter. */
export async function open(page: Page, summary: string) {
  await page.getByText(summary, { exact: true }).focus();
  await page.keyboard.press("Enter");
}

/** Fills the fields in tab order, Tab between them (`null`: left as it is); the focus stays on the last. */
export async function typeFields(page: Page, first: Locator, values: (string | null)[]) {
  await first.focus();
  for (const [index, value] of values.entries()) {
    if (index > 0) await page.keyboard.press("Tab");
    if (value !== null) {
      await page.keyboard.press("ControlOrMeta+a");
      if (value === "") await page.keyboard.press("Backspace");
      else await page.keyboard.type(value);
    }
  }
}
