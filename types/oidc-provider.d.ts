// The part of oidc-provider's API the test identity provider (tests/support/oidc-idp.ts) uses; the
// package ships JavaScript only, and one test helper does not warrant @types/oidc-provider.
declare module "oidc-provider" {
  import type { Server } from "node:http";

  interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    save(): Promise<string>;
  }

  interface OidcContext {
    oidc: {
      provider: { Grant: new (init: { clientId: string; accountId: string }) => GrantInstance };
      client?: { clientId: string };
      session?: { accountId?: string };
    };
  }

  interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }

  interface Configuration {
    clients?: Record<string, unknown>[];
    claims?: Record<string, string[]>;
    conformIdTokenClaims?: boolean;
    features?: Record<string, { enabled: boolean }>;
    cookies?: { keys: string[] };
    findAccount?(ctx: OidcContext, id: string): Promise<Account | undefined>;
    loadExistingGrant?(ctx: OidcContext): Promise<GrantInstance | undefined>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    listen(port: number, host: string, callback: () => void): Server;
  }
}
