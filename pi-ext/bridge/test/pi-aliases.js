// @ts-check
// Preloaded by scripts/bridge-test.sh (`node --import`): resolves the bridge's
// `@mariozechner/*` imports the way pi's extension loader does (1.x renamed
// its packages to `@earendil-works/*` and aliases the old names for
// extensions; `@mariozechner/pi-ai` is its extension view, not pi-ai's bare
// root, which lacks `stream`). A no-op when pi 1.x is not installed.
import { registerHooks } from "node:module";

const OLD = "@mariozechner/";
const NEW = "@earendil-works/";

/** @type {string | undefined} */
let piIndex;
try {
  piIndex = import.meta.resolve(`${NEW}pi-coding-agent`);
} catch {
  piIndex = undefined;
}

if (piIndex) {
  const index = piIndex;
  const aiView = new URL("./core/extensions/pi-ai-extension-view.js", index).href;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (!specifier.startsWith(OLD)) return nextResolve(specifier, context);
      if (specifier === `${OLD}pi-ai`) return { url: aiView, shortCircuit: true };
      if (specifier === `${OLD}pi-coding-agent`) return { url: index, shortCircuit: true };
      // The other packages as pi itself resolves them (its own copies).
      return nextResolve(NEW + specifier.slice(OLD.length), { ...context, parentURL: index });
    },
  });
}
