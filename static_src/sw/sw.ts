/**
 * The service worker, built by build.mjs to static/dist/sw.js (not hashed) and served at
 * /sw.js with "Service-Worker-Allowed: /" so it controls the whole site.
 */
import { installServiceWorker, type SwScope } from "./handlers";

installServiceWorker(self as unknown as SwScope);
