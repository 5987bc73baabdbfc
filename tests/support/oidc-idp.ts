import type { Server } from "node:http";
import Provider from "oidc-provider";
import { freePort } from "./services/postgres";

/**
 * A throw-away OpenID Connect identity provider for tests: the `oidc-provider` package (a certified
 * implementation) on a loopback port, with its development login form (any login, any password) and
 * one client for Mosaic. The test decides each account's claims, and may change them between sign-ins.
 */

export interface TestAccount {
  email: string;
  name: string;
  email_verified?: boolean;
  /** Read through OIDC_ROLES_CLAIM / OIDC_GROUPS_CLAIM ("roles" and "groups" here). */
  roles?: string[];
  groups?: string[];
}

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Login name (what the form's "login" field takes) → claims. */
  accounts: Map<string, TestAccount>;
  stop(): Promise<void>;
}

export async function startTestIdp(opts: {
  redirectUris: string[];
  port?: number;
  clientId?: string;
  clientSecret?: string;
}): Promise<TestIdp> {
  const port = opts.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = opts.clientId ?? "mosaic";
  const clientSecret = opts.clientSecret ?? "mosaic-test-client-secret-0123456789";
  const accounts = new Map<string, TestAccount>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "roles", "groups"] },
    // Claims in the ID token itself, as Keycloak and Entra ID send groups and roles.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["test-idp-cookie-key-0123456789abcdef"] },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          const a = accounts.get(id)!;
          return {
            sub: id,
            email: a.email,
            email_verified: a.email_verified ?? true,
            name: a.name,
            ...(a.roles ? { roles: a.roles } : {}),
            ...(a.groups ? { groups: a.groups } : {}),
          };
        },
      };
    },
    // Consent is granted at once (a company's own application): the test goes login → back to Mosaic.
    async loadExistingGrant(ctx) {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope("openid email profile");
      grant.addOIDCClaims(["email", "email_verified", "name", "roles", "groups"]);
      await grant.save();
      return grant;
    },
  });
  const server: Server = await new Promise((resolve) => {
    const s = provider.listen(port, "127.0.0.1", () => resolve(s));
  });
  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
