// The server suite's pre-test step (its `test` script): finds or installs the browser of the API reference test.
// A browser it cannot bring is reported here and by that test, while every other test still runs.
import { ensureChromium } from "./chromium.js";

const problem = ensureChromium();
if (problem) console.warn(`[tests] ${problem}`);
