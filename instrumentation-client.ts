import { z } from "zod";

// Runs in the browser before the app's own code (Next.js instrumentation-client). zod compiles fast
// parsers with `new Function`, which the Content-Security-Policy forbids (proxy.ts); even its probe for
// whether it may is reported as a violation. The interpreted parsers are just as correct.
z.config({ jitless: true });
